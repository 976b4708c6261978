import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMcpConfig } from './config.js';
import { McpConfigError, McpUrlRefusedError } from './errors.js';
import { schemaProblem } from './internal/schema-check.js';
import { checkServerUrl } from './internal/url-check.js';

// Hostile input at the package's other boundaries: configuration files, server URLs and the
// input schemas servers send.
describe('hostile input', () => {
  it('parseMcpConfig accepts or refuses any JSON with McpConfigError, never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ mcpServers: fc.dictionary(fc.string(), fc.jsonValue()) }),
        ),
        (value) => {
          try {
            const servers = parseMcpConfig(value);
            for (const entry of Object.values(servers)) expect(typeof entry).toBe('object');
          } catch (error) {
            expect(error).toBeInstanceOf(McpConfigError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('checkServerUrl passes only https and loopback http, and refuses the rest with McpUrlRefusedError', () => {
    const urls = fc.oneof(
      fc.webUrl({ validSchemes: ['http', 'https', 'ftp', 'file', 'ws'] }),
      fc.string(),
      fc.constantFrom(
        'http://127.0.0.1.evil.com/',
        'http://localhost@evil.com/',
        'http://[::ffff:127.0.0.1]/',
        'HTTP://LOCALHOST:1/x',
        'javascript:alert(1)',
      ),
    );
    fc.assert(
      fc.property(urls, (url) => {
        try {
          const parsed = checkServerUrl('s', url);
          const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
          expect(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback)).toBe(
            true,
          );
        } catch (error) {
          expect(error).toBeInstanceOf(McpUrlRefusedError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('schemaProblem never throws, whatever a server declares as its input schema', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            type: fc.constant('object'),
            properties: fc.dictionary(fc.string(), fc.jsonValue()),
          }),
        ),
        (schema) => {
          const problem = schemaProblem(schema);
          expect(problem === undefined || typeof problem === 'string').toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
