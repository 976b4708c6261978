// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { visibleText } from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createMcpManager,
  describeServer,
  type McpManager,
  type McpManagerOptions,
  type McpServersConfig,
} from '../src/index.js';
import { runTool, tempFolder, testServer, toolNamed } from './helpers.js';
import { hostileString, samples, secretString, UNSAFE } from './hostile-text.js';

const managers: McpManager[] = [];
afterAll(() => Promise.all(managers.map((manager) => manager.close())));

const [secret, literal] = samples(secretString, 2, 34);
const names = [
  '\u001b]0;owned\u0007',
  'evil\u202eexe.txt',
  '\u009b2J',
  ...samples(hostileString, 40, 7),
];

/** A manager of one hostile server; its secrets come from `${HOSTILE_SECRET}` and a literal value. */
function hostile(
  extraEnv: Record<string, string> = {},
  extra: Pick<McpManagerOptions, 'answerElicitation' | 'answerSampling'> = {},
): McpManager {
  const folder = tempFolder();
  const spec = join(folder, 'spec.json');
  writeFileSync(
    spec,
    JSON.stringify({ names, stderr: names.join(' '), error: names.slice(0, 5).join(' ') }),
  );
  const servers: McpServersConfig = {
    hostile: {
      command: process.execPath,
      args: [testServer('hostile.mjs')],
      env: {
        HOSTILE_SPEC: spec,
        SECRET_TOKEN: '${HOSTILE_SECRET}',
        API_KEY: literal as string,
        ...extraEnv,
      },
      callTimeoutMs: 20_000,
      elicitation: extra.answerElicitation !== undefined,
      sampling: extra.answerSampling !== undefined,
    },
  };
  const manager = createMcpManager({
    servers,
    cwd: process.cwd(),
    env: { ...process.env, HOSTILE_SECRET: secret },
    ...extra,
  });
  managers.push(manager);
  return manager;
}

/** Everything the manager would let a front end print about its servers. */
function printable(manager: McpManager): string[] {
  const out: string[] = [];
  for (const status of manager.status())
    out.push(status.name, status.description, status.error ?? '', ...status.tools);
  for (const diagnostic of manager.diagnostics())
    out.push(diagnostic.server, diagnostic.tool ?? '', diagnostic.message);
  return out;
}

function expectNoSecret(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(literal);
  }
}

describe('a hostile MCP server', () => {
  it('never gets a control or bidi character into a status, a skipped-tool warning or an error', async () => {
    const mcp = hostile();
    await mcp.tools();
    const texts = printable(mcp);
    for (const text of texts) expect(text).not.toMatch(UNSAFE);
    // Each hostile name with a non-object schema is reported, made visible.
    const skipped = mcp.diagnostics().map((diagnostic) => diagnostic.tool);
    for (const [index, name] of names.entries())
      if (index % 2 === 0) expect(skipped).toContain(visibleText(name));
    expect(mcp.status()[0]?.state).toBe('ready');
  }, 30_000);

  it('skips only the tool whose input schema is not an object; the server stays available', async () => {
    const mcp = hostile();
    const tools = await mcp.tools();
    expect(mcp.diagnostics().some((entry) => entry.tool === 'array-schema')).toBe(true);
    expect(tools.some((tool) => tool.spec.name === 'mcp__hostile__array-schema')).toBe(false);
    const output = await runTool(toolNamed(tools, 'mcp__hostile__big'), { count: 3 });
    expect(output.content).toBe('xxx');
  }, 30_000);

  it('redacts its secrets from results, structured content, errors, progress, descriptions and instructions', async () => {
    const mcp = hostile();
    const tools = await mcp.tools();
    const leak = await runTool(toolNamed(tools, 'mcp__hostile__leak'), {});
    expect(leak.content).toContain('[redacted]');
    const fail = await runTool(toolNamed(tools, 'mcp__hostile__fail'), {});
    expect(fail.isError).toBe(true);
    const progress: string[] = [];
    await runTool(
      toolNamed(tools, 'mcp__hostile__progress'),
      { count: 3, delayMs: 20 },
      { onProgress: ({ message }) => progress.push(message ?? '') },
    );
    expect(progress.length).toBeGreaterThan(0);
    expectNoSecret([
      leak.content,
      fail.content,
      ...progress,
      ...tools.map((tool) => tool.spec.description),
      mcp.instructions('hostile') ?? '',
      ...printable(mcp),
    ]);
  }, 30_000);

  it('redacts secrets and escapes from the stderr of a server that fails to start (split across writes)', async () => {
    const mcp = hostile({ FAIL_AT_START: '1' });
    await mcp.tools();
    const [failure] = mcp.diagnostics();
    expect(failure?.message).toContain('[redacted]');
    expect(failure?.message).toContain('stderr');
    expectNoSecret(printable(mcp));
    for (const text of printable(mcp)) expect(text).not.toMatch(UNSAFE);
  }, 30_000);

  it('keeps secrets out of the tool result after a crash and a failed restart', async () => {
    const marker = join(tempFolder(), 'crashed');
    const mcp = hostile({ CRASH_MARKER: marker });
    const tools = await mcp.tools();
    const output = await runTool(toolNamed(tools, 'mcp__hostile__crash'), {});
    expect(output.isError).toBe(true);
    expect(output.content).toContain('could not be restarted');
    const again = await runTool(toolNamed(tools, 'mcp__hostile__leak'), {});
    expect(again.content).toContain('[redacted]');
    expectNoSecret([output.content, again.content, ...printable(mcp)]);
  }, 30_000);

  it('redacts its secrets from the question it puts to the person (elicitation)', async () => {
    const asked: string[] = [];
    const mcp = hostile(
      {},
      {
        answerElicitation: async (request) => {
          asked.push(request.params.message);
          return { action: 'decline' };
        },
      },
    );
    const tools = await mcp.tools();
    const output = await runTool(toolNamed(tools, 'mcp__hostile__ask'), {});
    expect(output.content).toBe('answered decline');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('[redacted]');
    expectNoSecret(asked);
  }, 30_000);

  it('redacts its secrets from a sampling request before the model or the log sees it', async () => {
    const requests: string[] = [];
    const mcp = hostile(
      {},
      {
        answerSampling: async (request) => {
          requests.push(JSON.stringify(request.params));
          return { role: 'assistant', model: 'm', content: { type: 'text', text: 'ok' } };
        },
      },
    );
    const tools = await mcp.tools();
    const output = await runTool(toolNamed(tools, 'mcp__hostile__sample'), {});
    expect(output.content).toBe('sampled text');
    expect(requests[0]).toContain('[redacted]');
    expect(requests[0]).not.toContain(literal);
    expect(requests[0]).not.toContain(JSON.stringify(secret).slice(1, -1));
  }, 30_000);

  it('describes an entry with hostile arguments and variable names on one safe line', () => {
    for (const word of names) {
      const line = describeServer({ command: word, args: [word], env: { [word]: 'x' } });
      expect(line).not.toMatch(UNSAFE);
    }
  });
});
