import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonlStore, Session } from '../src/index.js';
import { bundleChild, startChild } from './child.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-exit-'));
let bundle = '';
beforeAll(async () => {
  bundle = await bundleChild(join(dir, 'child.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('buffered writes at process exit', () => {
  it('writes events still buffered when the process exits without closing the session', async () => {
    const child = startChild(bundle, dir, 'exiting', 'exit');
    expect(await child.exited).toBe(0);
    const session = await Session.open({
      store: createJsonlStore({ dir }),
      id: 'exiting',
      readOnly: true,
    });
    expect(session.deriveMessages().messages.map((message) => message.content)).toEqual([
      'before exit 0',
      'before exit 1',
      'before exit 2',
    ]);
    await session.close();
  });
});
