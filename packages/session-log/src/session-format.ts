import type { SessionEvent, SessionHeaderBody } from '@spine/protocol';
import { FORMAT_VERSION, findNonJson } from '@spine/protocol/core';
import { InvalidEventError, SessionCorruptError, UnsupportedFormatError } from './errors.js';
import { formatVersionOf, migrateEvents } from './migrations.js';
import type { SessionCreateOptions } from './types.js';

/**
 * Checks the header of stored events and brings them to the current format version. Older
 * versions are migrated in memory, which is allowed only read-only (the file keeps its format;
 * `fork()` writes a current copy); newer versions are refused.
 *
 * @throws a {@link SessionCorruptError} when the first event is not a `session/header`.
 * @throws an {@link UnsupportedFormatError} for a format version newer than this reader, or an
 *   older one without `readOnly`.
 */
export function currentFormatEvents(
  events: readonly SessionEvent[],
  options: { where: string; sessionId: string; readOnly: boolean },
): readonly SessionEvent[] {
  const first = events[0];
  if (first?.type !== 'session/header') {
    throw new SessionCorruptError({
      file: options.where,
      line: 1,
      reason: 'the first event is not a session/header',
    });
  }
  const version = formatVersionOf(first);
  if (version > FORMAT_VERSION) {
    throw new UnsupportedFormatError({
      sessionId: options.sessionId,
      formatVersion: version,
      reason: `this reader knows versions up to ${FORMAT_VERSION}; upgrade @spine/session-log`,
    });
  }
  if (version === FORMAT_VERSION) return events;
  if (!options.readOnly) {
    throw new UnsupportedFormatError({
      sessionId: options.sessionId,
      formatVersion: version,
      reason: `open it with { readOnly: true } (it is migrated in memory) and fork() it to write a version ${FORMAT_VERSION} copy`,
    });
  }
  return migrateEvents(events, version);
}

/**
 * Builds the `session/header` event (seq 1) for a new session.
 *
 * @throws an {@link InvalidEventError} when `meta` is not plain JSON.
 */
export function headerEvent(
  id: string,
  options: Omit<SessionCreateOptions, 'store'>,
): SessionEvent {
  const header: SessionHeaderBody = {
    formatVersion: FORMAT_VERSION,
    sessionId: id,
    createdAt: new Date().toISOString(),
  };
  if (options.cwd !== undefined) header.cwd = options.cwd;
  if (options.title !== undefined) header.title = options.title;
  if (options.model !== undefined) header.model = options.model;
  if (options.parent !== undefined) header.parent = { ...options.parent };
  if (options.meta !== undefined) header.meta = options.meta;
  const reason = findNonJson(header);
  if (reason) throw new InvalidEventError({ type: 'session/header', reason });
  return { seq: 1, type: 'session/header', at: header.createdAt, body: header };
}
