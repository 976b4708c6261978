import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JobOutputFile } from './job-output.js';

const root = mkdtempSync(join(tmpdir(), 'spine-job-output-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('JobOutputFile', () => {
  it('returns any kept range byte for byte, releases old output past the cap and says where kept output starts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 6000 }), { maxLength: 12 }),
        fc.nat(),
        fc.nat({ max: 40_000 }),
        async (chunks, offsetSeed, length) => {
          const dir = join(root, String(run++));
          mkdirSync(dir);
          const file = new JobOutputFile({ dir, id: 'job-1', retainBytes: 16_384 });
          for (const chunk of chunks) {
            file.append(Buffer.from(chunk));
            await file.trim();
          }
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          expect(file.size).toBe(all.length);
          expect(all.length - file.firstKept).toBeLessThanOrEqual(16_384 + 6000);
          const offset = all.length === 0 ? 0 : offsetSeed % all.length;
          const { start, bytes } = file.read(offset, length);
          expect(start).toBe(Math.max(offset, file.firstKept));
          const expected = all.subarray(start, Math.min(all.length, offset + length));
          expect(bytes.equals(expected)).toBe(true);
          file.close();
          // Released output takes no disk: the file is sparse.
          expect(statSync(file.path).blocks * 512).toBeLessThanOrEqual(
            all.length - file.firstKept + 8192,
          );
          expect(file.read(offset, length).bytes.equals(expected)).toBe(true);
          file.remove();
        },
      ),
      { numRuns: 60 },
    );
  });
});
