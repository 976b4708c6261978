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
 * @throws an {@link UnknownEventTypeError} from `project` for any other type.
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
          const message: Message = { role: 'user', content: body.content, source: body.source };
          if (body.images && body.images.length > 0) message.images = body.images;
          return [message];
        }
        case 'assistant/message': {
          const body = event.body as AssistantMessageBody;
          return [{ role: 'assistant', content: body.content }];
        }
        case 'tool/result': {
          const body = event.body as ToolResultBody;
          const message: Message = {
            role: 'tool',
            toolCallId: body.toolCallId,
            toolName: body.toolName,
            content: body.content,
            isError: body.isError,
          };
          if (body.images && body.images.length > 0) message.images = body.images;
          return [message];
        }
        default:
          throw new UnknownEventTypeError({ type: event.type, where: 'the default projector' });
      }
    },
  };
}
