import type { AssistantPart, JsonObject, SessionEvent, SurfaceOp } from '@spine/protocol';
import { FORMAT_VERSION } from '@spine/protocol/core';

/**
 * A pure function that turns the events of one format version into the next one. It must not
 * mutate its input and must keep every seq (seqs are referenced by surface ops).
 */
export type Migration = (events: readonly SessionEvent[]) => SessionEvent[];

type Loose = Record<string, unknown>;

/**
 * Version 0 (the pre-release draft format): the header body said `id` and `created`, with no
 * `formatVersion`; messages were `message/user` `{ text }` and `message/assistant`
 * `{ text, toolCalls: [{ id, name, args }] }`; tool results were `tool/output`
 * `{ callId, name, output, failed? }`; and an event entered the surface by carrying `visible: true`.
 */
export function migrateV0ToV1(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((event) => {
    const body = (event.body ?? {}) as Loose;
    const next: SessionEvent & { visible?: unknown } = { ...event };
    const surfaceOp: SurfaceOp | undefined = (event as { visible?: unknown }).visible
      ? { op: 'append' }
      : event.surfaceOp;
    delete next.visible;
    if (surfaceOp) next.surfaceOp = surfaceOp;
    switch (event.type) {
      case 'session/header': {
        const header: JsonObject = {
          formatVersion: 1,
          sessionId: String(body.id ?? body.sessionId),
          createdAt: String(body.created ?? body.createdAt ?? event.at),
        };
        for (const key of ['cwd', 'title', 'model'] as const) {
          if (typeof body[key] === 'string') header[key] = body[key] as string;
        }
        next.body = header;
        break;
      }
      case 'message/user':
        next.type = 'user/message';
        next.body = { content: String(body.text ?? ''), source: 'user' };
        break;
      case 'message/assistant': {
        const content: AssistantPart[] = [];
        if (typeof body.text === 'string' && body.text.length > 0) {
          content.push({ type: 'text', text: body.text });
        }
        for (const call of (body.toolCalls ?? []) as Loose[]) {
          content.push({
            type: 'tool-call',
            id: String(call.id),
            name: String(call.name),
            arguments: JSON.stringify(call.args ?? {}),
          });
        }
        const finishReason = content.some((part) => part.type === 'tool-call')
          ? 'tool-calls'
          : 'stop';
        next.type = 'assistant/message';
        next.body = { content, finishReason };
        break;
      }
      case 'tool/output':
        next.type = 'tool/result';
        next.body = {
          toolCallId: String(body.callId),
          toolName: String(body.name),
          content: String(body.output ?? ''),
          isError: body.failed === true,
        };
        break;
    }
    return next;
  });
}

/** Every migration, keyed by the version it upgrades from. */
export const MIGRATIONS: Readonly<Record<number, Migration>> = { 0: migrateV0ToV1 };

/** The format version a header event declares; a header without one is version 0. */
export function formatVersionOf(header: SessionEvent): number {
  const version = (header.body as Loose | undefined)?.formatVersion;
  return typeof version === 'number' ? version : 0;
}

/**
 * Upgrades `events` from format version `from` to `options.to` (default: the current version) by
 * chaining {@link MIGRATIONS}. Pure.
 *
 * @throws a {@link RangeError} when no migration path exists.
 * @example
 * ```ts
 * const current = migrateEvents(oldEvents, formatVersionOf(oldEvents[0]!));
 * ```
 */
export function migrateEvents(
  events: readonly SessionEvent[],
  from: number,
  options: { to?: number } = {},
): SessionEvent[] {
  const to = options.to ?? FORMAT_VERSION;
  let current = [...events];
  for (let version = from; version < to; version++) {
    const migration = MIGRATIONS[version];
    if (!migration)
      throw new RangeError(`no migration from format version ${version} to ${version + 1}`);
    current = migration(current);
  }
  return current;
}
