// Conformance cases about a session's blobs (image bytes by SHA-256): stored once, read back
// exactly by any later reader, refused on a read-only writer.

import { createHash } from 'node:crypto';
import { Session } from '../session.js';
import { ensure, expectCode, expectSame, show } from './assert.js';
import type { StoreConformanceCase } from './types.js';

function bytesOf(seed: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 17) & 0xff;
  return bytes;
}

function same(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && Buffer.from(a).equals(Buffer.from(b));
}

/** Cases about `OpenedSession.blobs` (a store without blobs must say so consistently). */
export const blobCases: readonly StoreConformanceCase[] = [
  {
    name: 'keeps blobs by SHA-256: once per session, read back byte for byte after reopening',
    async run(fresh) {
      const store = await fresh();
      const session = await Session.create({ store, id: 'blobs' });
      const blobs = session.blobs;
      if (!blobs) {
        // A store without blobs: the session says so, and no open grows one later.
        await session.close();
        const reader = await Session.open({ store, id: 'blobs', readOnly: true });
        expectSame(reader.blobs, undefined, 'blobs of a store that kept none on create');
        await reader.close();
        return;
      }
      const first = bytesOf(1, 70_000);
      const sha256 = blobs.put(first);
      expectSame(sha256, createHash('sha256').update(first).digest('hex'), 'blobs.put(bytes)');
      expectSame(blobs.put(first), sha256, 'putting the same bytes again');
      ensure(same(blobs.get(sha256), first), 'blobs.get after put: expected the bytes put');
      expectSame(blobs.get('0'.repeat(64)), undefined, 'blobs.get of an unknown hash');
      const image = {
        type: 'image',
        mediaType: 'image/png',
        sha256,
        size: 70_000,
        width: 1,
        height: 1,
      };
      session.append(
        'user/message',
        { content: 'see', source: 'user', images: [image] },
        {
          turn: 1,
          surfaceOp: { op: 'append' },
        },
      );
      await session.close();
      const reader = await Session.open({ store, id: 'blobs', readOnly: true });
      ensure(
        reader.blobs !== undefined,
        'a read-only open of a session with blobs: expected session.blobs',
      );
      ensure(same(reader.blobs.get(sha256), first), 'blobs.get after reopening read-only');
      await expectCode(
        () => reader.blobs?.put(bytesOf(2, 10)),
        'SESSION_CLOSED',
        'blobs.put on a read-only session',
      );
      await reader.close();
      const writer = await Session.open({ store, id: 'blobs' });
      const second = bytesOf(3, 5);
      const other = writer.blobs?.put(second);
      ensure(other !== undefined && other !== sha256, `a second blob's hash: ${show(other)}`);
      ensure(same(writer.blobs?.get(other), second), 'the second blob read back');
      ensure(same(writer.blobs?.get(sha256), first), 'the first blob after a second put');
      // A fork takes the blobs its copied events reference.
      const child = await writer.fork(2, { id: 'blobs-fork' });
      ensure(same(child.blobs?.get(sha256), first), 'the referenced blob in a fork');
      expectSame(child.blobs?.get(other), undefined, 'an unreferenced blob in a fork');
      await child.close();
      await writer.close();
    },
  },
];
