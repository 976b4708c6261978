import type { PromptSystemBody, RequestHeaderBody, ToolsDefinedBody } from '@spine/agent-loop';
import type { Message, ModelRequest, SessionLog } from '@spine/protocol';
import { createDefaultProjector } from '@spine/session-log';

/**
 * Rebuilds the model request recorded by the `request/header` at `headerSeq` from the log alone:
 * the surface as it stood then, projected to messages, with the stored system prompt and tools.
 * `replay()` in agent-loop verifies the same rebuild against the recorded hashes.
 */
export function rebuildRequest(session: SessionLog, headerSeq: number): ModelRequest {
  const projector = createDefaultProjector();
  const systems = new Map<string, string>();
  const toolLists = new Map<string, ToolsDefinedBody['tools']>();
  const surface: number[] = [];
  for (const event of session.events({ to: headerSeq })) {
    if (event.surfaceOp?.op === 'append') surface.push(event.seq);
    else if (event.surfaceOp?.op === 'replace') {
      const start = surface.indexOf(event.surfaceOp.start);
      const end = surface.indexOf(event.surfaceOp.end);
      if (start >= 0 && end >= start) surface.splice(start, end - start + 1, event.seq);
    } else if (event.type === 'prompt/system') {
      const body = event.body as PromptSystemBody;
      systems.set(body.hash, body.text);
    } else if (event.type === 'tools/defined') {
      const body = event.body as ToolsDefinedBody;
      toolLists.set(body.hash, body.tools);
    }
  }
  const header = session.get(headerSeq)?.body as RequestHeaderBody;
  const messages: Message[] = [];
  for (const seq of surface) {
    const event = session.get(seq);
    if (event) messages.push(...projector.project(event));
  }
  const request: ModelRequest = {
    model: header.model,
    system: systems.get(header.systemHash) ?? '',
    messages,
    tools: toolLists.get(header.toolsHash) ?? [],
  };
  if (header.sessionId !== undefined) request.sessionId = header.sessionId;
  if (header.maxOutputTokens !== undefined) request.maxOutputTokens = header.maxOutputTokens;
  if (header.reasoning !== undefined) {
    request.reasoning = header.reasoning as NonNullable<ModelRequest['reasoning']>;
  }
  return request;
}
