// node:crypto on first use. Loading it costs about 7% of a bare `node -e 0` start, more than the
// rest of this package's import time together with zod out of the way, and a session that only
// reads or uses the memory store never hashes. `process.getBuiltinModule` (Node ≥ 20.16) loads a
// built-in synchronously, so callers keep synchronous signatures.
import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

function crypto(): typeof Crypto {
  loaded ??= process.getBuiltinModule('node:crypto');
  return loaded;
}

/** `createHash` of node:crypto, loading the module on the first call. */
export function createHash(algorithm: string): Crypto.Hash {
  return crypto().createHash(algorithm);
}

/** One-shot `hash` of node:crypto, loading the module on the first call. */
export function hash(algorithm: string, data: Crypto.BinaryLike, encoding: 'buffer'): Buffer;
export function hash(
  algorithm: string,
  data: Crypto.BinaryLike,
  encoding?: Crypto.BinaryToTextEncoding,
): string;
export function hash(
  algorithm: string,
  data: Crypto.BinaryLike,
  encoding?: Crypto.BinaryToTextEncoding | 'buffer',
): string | Buffer {
  const oneShot = crypto().hash as (a: string, d: Crypto.BinaryLike, e?: string) => string | Buffer;
  return oneShot(algorithm, data, encoding);
}

/** `randomUUID` of node:crypto, loading the module on the first call. */
export function randomUUID(): string {
  return crypto().randomUUID();
}
