import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JobOutputFile } from './job-output.js';

const root = mkdtempSync(join(tmpdir(), 'spine-job-output-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('JobOutputFile', () => {
  it('returns any kept range byte for byte and names what was deleted', () => {
    let run = 0;
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 3000 }), { maxLength: 20 }),
        fc.nat(),
        fc.nat({ max: 9000 }),
        (chunks, offsetSeed, length) => {
          const dir = join(root, String(run++));
          mkdirSync(dir);
          const file = new JobOutputFile({ dir, id: 'job-1', retainBytes: 8192 });
          for (const chunk of chunks) file.append(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(file.size).toBe(all.length);
          expect(all.length - file.firstKept).toBeLessThanOrEqual(8192);
          const offset = all.length === 0 ? 0 : offsetSeed % all.length;
          const { start, bytes } = file.read(offset, length);
          expect(start).toBe(Math.max(offset, file.firstKept));
          expect(bytes.equals(all.subarray(start, Math.min(all.length, offset + length)))).toBe(
            true,
          );
          file.close();
          // Segments on disk never exceed the retention (the newest may be partly filled).
          expect(readdirSync(dir).length).toBeLessThanOrEqual(4);
          file.remove();
          expect(readdirSync(dir)).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
