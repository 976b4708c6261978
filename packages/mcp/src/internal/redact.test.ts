// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${ENV} references are configuration text, not template literals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, StreamRedactor, secretValues } from './redact.js';

const secret = fc
  .string({ unit: fc.constantFrom(...'ab.*$\\(['.split('')), minLength: 4, maxLength: 10 })
  .map((body) => `K${body}`);
const noise = fc.string({ unit: fc.constantFrom(...'xyz ab\n'.split('')), maxLength: 30 });

describe('redaction of configured secrets', () => {
  it('a chunked stream redacts exactly like the whole text, wherever the chunks split', () => {
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(noise, fc.nat(2)), { maxLength: 6 }),
        fc.array(fc.nat(40), { maxLength: 8 }),
        (secrets, pieces, cuts) => {
          const text = pieces
            .map(([before, which]) => before + secrets[which % secrets.length])
            .join('');
          const redactor = new Redactor(secrets);
          const stream = new StreamRedactor(redactor);
          let out = '';
          let from = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            const to = Math.min(text.length, cut);
            if (to < from) continue;
            out += stream.push(text.slice(from, to));
            from = to;
          }
          out += stream.push(text.slice(from)) + stream.peek();
          expect(out).toBe(redactor.redact(text));
          for (const value of secrets)
            if (!REDACTED.includes(value)) expect(out).not.toContain(value);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes env and header values, expanded references and bearer tokens, not short values', () => {
    const env = { TOKEN: 'from-variable', SHORT: 'ab' };
    expect(
      secretValues(
        {
          command: 'node',
          args: ['--key=${TOKEN}', '${SHORT}'],
          env: { A: 'literal-value', B: 'x' },
        },
        {
          command: 'node',
          args: ['--key=from-variable', 'ab'],
          env: { A: 'literal-value', B: 'x' },
        },
        env,
      ).sort(),
    ).toEqual(['from-variable', 'literal-value']);
    // `${HOME}` in args locates a file: paths in results stay readable.
    expect(
      secretValues(
        { command: 'node', args: ['${HOME}/server.js', '--token=${TOKEN}'] },
        { command: 'node', args: ['/home/me/server.js', '--token=from-variable'] },
        { ...env, HOME: '/home/me' },
      ),
    ).toEqual(['from-variable']);
    expect(
      secretValues(
        {
          type: 'http',
          url: 'https://example.com/?k=${TOKEN}',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        {
          type: 'http',
          url: 'https://example.com/?k=from-variable',
          headers: { Authorization: 'Bearer from-variable' },
        },
        env,
      ).sort(),
    ).toEqual(['Bearer from-variable', 'from-variable']);
  });
});
