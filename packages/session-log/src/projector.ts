import type {
  AssistantMessageBody,
  Message,
  Projector,
  SessionEvent,
  ToolResultBody,
  UserMessageBody,
} from '@spine/protocol';
import { UnknownEventTypeError } from './errors.js';

/**
 * Creates the projector for the built-in surface types: `user/message` → user message (with
 * `source`), `assistant/message` → assistant message, `tool/result` → tool message.
 *
 * @throws {UnknownEventTypeError} from `project` for any other type.
 * @example
 * ```ts
 * const projector = createDefaultProjector();
 * projector.project(session.get(2)!); // [{ role: 'user', content: 'hi', source: 'user' }]
 * ```
 */
export function createDefaultProjector(): Projector {
  return {
    specificationVersion: 1,
    project(event: SessionEvent): readonly Message[] {
      switch (event.type) {
        case 'user/message': {
          const body = event.body as UserMessageBody;
          return [{ role: 'user', content: body.content, source: body.source }];
        }
        case 'assistant/message': {
          const body = event.body as AssistantMessageBody;
          return [{ role: 'assistant', content: body.content }];
        }
        case 'tool/result': {
          const body = event.body as ToolResultBody;
          return [
            {
              role: 'tool',
              toolCallId: body.toolCallId,
              toolName: body.toolName,
              content: body.content,
              isError: body.isError,
            },
          ];
        }
        default:
          throw new UnknownEventTypeError({ type: event.type, where: 'the default projector' });
      }
    },
  };
}
