// A session written from a stream of events (what `spine show` and `spine export` print): the same text the whole-load
// renderers produce (renderTranscript, renderSessionMarkdown, JSON.stringify), event by event.

import {
  type AssistantMessageBody,
  addUsage,
  type SessionEvent,
  type Usage,
  visibleJson,
  visibleText,
} from '@spine/protocol';
import type { ChunkWriter } from './output.js';
import { type TranscriptOptions, transcriptFooter, transcriptLines } from './transcript.js';

const NO_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

/** What a streamed pass noticed on the way, for what follows the text (the subagent tree). */
export interface StreamedPass {
  /** True when the session started a subagent (an `agent/child/start` event). */
  hasChildren: boolean;
}

/** Notes what {@link StreamedPass} records, passing every event through. */
async function* noting(
  events: AsyncIterable<SessionEvent>,
  pass: StreamedPass,
): AsyncIterable<SessionEvent> {
  for await (const event of events) {
    if (event.type === 'agent/child/start') pass.hasChildren = true;
    yield event;
  }
}

/** Writes the transcript `renderTranscript` renders for the same events, byte for byte. */
export async function writeTranscript(
  events: AsyncIterable<SessionEvent>,
  writer: ChunkWriter,
  options: TranscriptOptions = {},
): Promise<StreamedPass> {
  const pass: StreamedPass = { hasChildren: false };
  let usage = NO_USAGE;
  for await (const event of noting(events, pass)) {
    const lines = transcriptLines(event, options);
    if (lines.length > 0) await writer.write(`${lines.join('\n')}\n`);
    const reported =
      event.type === 'assistant/message' && (event.body as AssistantMessageBody).usage;
    if (reported) usage = addUsage(usage, reported);
  }
  await writer.write(`${transcriptFooter(usage, options).join('\n')}\n`);
  return pass;
}

/** Writes `spine show --events`: one line per event (seq, type, turn.step, body as JSON). */
export async function writeEventLines(
  events: AsyncIterable<SessionEvent>,
  writer: ChunkWriter,
): Promise<void> {
  for await (const event of events) {
    const where =
      event.turn === undefined
        ? ''
        : ` t${event.turn}${event.step === undefined ? '' : `.${event.step}`}`;
    await writer.write(
      `${String(event.seq).padStart(6)} ${visibleText(event.type)}${where} ${visibleJson(JSON.stringify(event.body))}\n`,
    );
  }
}

/** Writes `spine show --events --json`: one event per line (NDJSON), terminal-safe. */
export async function writeEventsNdjson(
  events: AsyncIterable<SessionEvent>,
  writer: ChunkWriter,
): Promise<void> {
  for await (const event of events) await writer.write(`${visibleJson(JSON.stringify(event))}\n`);
}
