import type { AttemptBody, RequestHeaderBody } from '@spine/protocol';
import {
  type AssistantMessageBody,
  addUsage,
  type SessionLog,
  type ToolCallPart,
  type ToolResultBody,
  type Usage,
} from '@spine/protocol';

/** Where an interrupted turn stopped. */
export interface OpenTurn {
  turn: number;
  /** The last step that started (0: only the user input was written). */
  step: number;
  /** `stream`: no assistant message yet; `tools`: message written, tools not all done; `done`: step ended. */
  phase: 'stream' | 'tools' | 'done';
  /** The attempt number of the last request of that step (0 for none). */
  attempt: number;
  /** Seq of that request's header. */
  headerSeq?: number;
  /** Whether that request's outcome was recorded. */
  attemptRecorded: boolean;
  /** Tool calls of the step's message that have no result. */
  pendingCalls: ToolCallPart[];
}

/** The loop state read back from a session log. */
export interface RestoredLoopState {
  lastTurn: number;
  open?: OpenTurn;
  usage: Usage;
}

/** Reads the last turn number, the interrupted turn (if any) and the usage totals from the log. */
export function restoreLoopState(session: SessionLog): RestoredLoopState {
  let lastTurn = 0;
  let usage: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
  let open: OpenTurn | undefined;
  let calls: ToolCallPart[] = [];
  const results = new Set<string>();
  for (const event of session.events()) {
    if (event.turn !== undefined && event.turn > lastTurn) lastTurn = event.turn;
    switch (event.type) {
      case 'turn/start':
        open = {
          turn: event.turn ?? lastTurn,
          step: 0,
          phase: 'done',
          attempt: 0,
          attemptRecorded: true,
          pendingCalls: [],
        };
        calls = [];
        results.clear();
        break;
      case 'turn/end':
        open = undefined;
        break;
      case 'step/start':
        if (open) {
          open.step = event.step ?? open.step + 1;
          open.phase = 'stream';
          open.attempt = 0;
          open.attemptRecorded = true;
          delete open.headerSeq;
          calls = [];
          results.clear();
        }
        break;
      case 'request/header':
        if (open) {
          open.attempt = (event.body as RequestHeaderBody).attempt;
          open.headerSeq = event.seq;
          open.attemptRecorded = false;
        }
        break;
      case 'assistant/attempt':
        if (open && (event.body as AttemptBody).request === open.headerSeq)
          open.attemptRecorded = true;
        break;
      case 'assistant/message': {
        const body = event.body as AssistantMessageBody;
        if (body.usage) usage = addUsage(usage, body.usage);
        if (open) {
          open.phase = 'tools';
          calls = body.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
        }
        break;
      }
      case 'tool/result':
        results.add((event.body as ToolResultBody).toolCallId);
        break;
      case 'step/end':
        if (open) open.phase = 'done';
        break;
    }
  }
  if (open) open.pendingCalls = calls.filter((call) => !results.has(call.id));
  return open ? { lastTurn, open, usage } : { lastTurn, usage };
}
