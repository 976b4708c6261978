// The chained JSONL append path (arena encoding with in-place escapes, sealing after a gap, group
// writes) against the plain text path kept as its oracle: `JSON.stringify` of each event sealed
// by `sealText`. Whatever the bodies hold, the file is byte for byte what the oracle writes, the
// verifier accepts it and names any line changed afterwards, and an append is refused exactly
// when the body is not plain JSON (the protocol's own `findNonJson`), leaving the log unchanged.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNonJson } from '@spine/protocol/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidEventError } from './errors.js';
import { sealText } from './internal/chain.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { verifyJsonlLog } from './verify-jsonl.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-append-oracle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Text as messages carry it: any code points, JSON's escapes, runs past 16 and 32 bytes. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({
    unit: fc.constantFrom('a', 'é', '😀', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u2028'),
    maxLength: 300,
  }),
  fc
    .tuple(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 120 }))
    .map(([unit, times]) => unit.repeat(times)),
);
/** A JSON leaf or, sometimes, one JSON cannot hold. */
const leaf = fc.oneof(
  { weight: 8, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      Number.NaN,
      Number.POSITIVE_INFINITY,
      undefined,
      () => 1,
      new Date(0),
      new Map(),
      10n,
    ),
  },
);
const body = fc.record({
  toolCallId: text,
  toolName: fc.constantFrom('read', 'bash'),
  content: text,
  isError: fc.boolean(),
  meta: fc.record({ params: fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })) }),
});

let sessions = 0;
describe('chained append against the stringify + sealText oracle', () => {
  it('writes the oracle bytes, verifies, names a changed line, and refuses exactly non-JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(body, { minLength: 1, maxLength: 25 }),
        fc.constantFrom(0, 512, 64 * 1024),
        fc.nat(),
        async (bodies, flushBytes, changedLine) => {
          const id = `s${++sessions}`;
          const store = createJsonlStore({ dir, fsync: 'never', flushBytes });
          const session = await Session.create({ store, id, snapshots: false });
          for (const value of bodies) {
            const nonJson = findNonJson(value, 'body');
            let refused: unknown;
            try {
              session.append('tool/result', value as never);
            } catch (error) {
              refused = error;
            }
            if (nonJson === undefined) expect(refused).toBeUndefined();
            else expect(refused).toBeInstanceOf(InvalidEventError);
          }
          await session.close();
          const path = join(dir, `${id}.jsonl`);
          const written = readFileSync(path, 'utf8');
          let head = '';
          let oracle = '';
          for (let seq = 1; seq <= session.lastSeq; seq++) {
            const sealed = sealText(JSON.stringify(session.get(seq)), head);
            oracle += sealed.line;
            head = sealed.head;
          }
          expect(written).toBe(oracle);
          expect(verifyJsonlLog(path).ok).toBe(true);

          // A changed value in any appended line breaks the chain at that line.
          const lines = written.slice(0, -1).split('\n');
          if (lines.length < 2) return;
          const at = 1 + (changedLine % (lines.length - 1));
          lines[at] = lines[at]!.replace(/"toolName":"(read|bash)"/, (_, name: string) =>
            name === 'read' ? '"toolName":"bash"' : '"toolName":"read"',
          );
          writeFileSync(path, `${lines.join('\n')}\n`);
          const verdict = verifyJsonlLog(path);
          expect(verdict.ok).toBe(false);
          expect(verdict.problem?.line).toBe(at + 1);
        },
      ),
      { numRuns: 150 },
    );
  });
});
