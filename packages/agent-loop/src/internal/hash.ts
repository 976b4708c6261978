import { createHash } from 'node:crypto';

/** SHA-256 of a UTF-8 string, as `sha256:<hex>`. */
export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
