import { currentSessionTitle, recordSessionTitle } from '@spine/harness';
import type { Session } from '@spine/session-log';

/**
 * Gives a fork the title its parent has now (a `session/title` event in the fork and its index
 * entry), so `spine sessions` and `/sessions` name it at once. Nothing when the parent has none:
 * the fork's first request titles it then. Returns the title recorded.
 */
export function titleFork(fork: Session, parent: Session, sessionDir: string): string | undefined {
  const title = currentSessionTitle(sessionDir, parent);
  if (title === undefined || title === '') return undefined;
  recordSessionTitle(fork, sessionDir, title, 'auto');
  return title;
}
