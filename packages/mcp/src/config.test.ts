// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeServer, expandServerConfig, expandVariables, parseMcpConfig } from './config.js';
import { McpConfigError } from './errors.js';

describe('MCP configuration', () => {
  it('reads the .mcp.json format: stdio and http entries', () => {
    const servers = parseMcpConfig({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'server'], env: { TOKEN: '${TOKEN}' } },
        remote: {
          type: 'http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${KEY}' },
        },
      },
    });
    expect(servers.fs).toMatchObject({ command: 'npx' });
    expect(servers.remote).toMatchObject({ type: 'http' });
  });

  it('refuses malformed entries with the server and the field named', () => {
    expect(() => parseMcpConfig({ mcpServers: { x: { args: [] } } })).toThrow(
      /server "x".*command/,
    );
    expect(() => parseMcpConfig({ mcpServers: { x: { type: 'ws', url: 'u' } } })).toThrow(
      McpConfigError,
    );
    expect(() => parseMcpConfig({ mcpServers: { 'bad name!': { command: 'a' } } })).toThrow(
      /server name/,
    );
    expect(() => parseMcpConfig([])).toThrow(McpConfigError);
  });

  it('expands ${ENV} in env, args and headers, and names a missing variable without values', () => {
    const env = { TOKEN: 's3cr3t', HOST: 'h' };
    const stdio = expandServerConfig(
      'fs',
      { command: 'run', args: ['--host=${HOST}'], env: { T: '${TOKEN}', D: '${NOPE:-d}' } },
      env,
    );
    expect(stdio).toMatchObject({ args: ['--host=h'], env: { T: 's3cr3t', D: 'd' } });
    const remote = expandServerConfig(
      'r',
      { type: 'http', url: 'https://${HOST}/mcp', headers: { A: 'Bearer ${TOKEN}' } },
      env,
    );
    expect(remote).toMatchObject({ url: 'https://h/mcp', headers: { A: 'Bearer s3cr3t' } });
    expect(() => expandVariables('${MISSING}', env, { server: 'fs', field: 'env.X' })).toThrow(
      /env\.X refers to \$\{MISSING\}/,
    );
  });

  it('describes an entry without its secret values', () => {
    expect(describeServer({ command: 'run', args: ['a b'], env: { TOKEN: 'x' } })).toBe(
      'TOKEN=*** run "a b"',
    );
    expect(
      describeServer({ type: 'http', url: 'https://u:p@h/mcp?key=k', headers: { A: 'v' } }),
    ).toBe('http https://h/mcp, A: ***');
  });

  it('expansion never leaks a value into an error and never throws anything but McpConfigError', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.dictionary(
          fc.stringMatching(/^[A-Z_]{1,5}$/),
          fc.string().map((value) => `\u0001SECRET${value}`),
        ),
        (text, env) => {
          try {
            expandVariables(text, env, { server: 's', field: 'f' });
          } catch (error) {
            expect(error).toBeInstanceOf(McpConfigError);
            for (const value of Object.values(env))
              if (value.length > 3) expect((error as Error).message).not.toContain(value);
          }
        },
      ),
    );
  });
});
