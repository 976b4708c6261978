import { randomBytes } from 'node:crypto';

/** A new session id that sorts by time and is a safe file name: `20261130-093412-a1b2c3`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
