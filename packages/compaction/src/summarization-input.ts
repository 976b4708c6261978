import type {
  Message,
  RequestHeaderBody,
  SessionLog,
  SummarizationInput,
  ToolSpec,
} from '@spine/protocol';
import { CompactionFailedError } from './errors.js';
import { promptAt, registeredSources } from './internal/sources.js';
import type { SurfaceRegion } from './region.js';

/** Fallbacks used when the log does not record the system prompt or tools in force. */
export interface SummarizationFallback {
  /** The system prompt in force now. */
  system: string;
  /** The tools in force now. */
  tools: readonly ToolSpec[];
  /** Focus the user asked for. */
  focus?: string;
}

/**
 * Restores what a summariser needs for a region: the region's messages as the model saw them,
 * and the system prompt and tools in force when the region was last sent (from the latest
 * `request/header` at or before the region's end, resolved through `prompt/system` and
 * `tools/defined`), falling back to the current ones.
 *
 * @throws a {@link CompactionFailedError} when the region is not on the surface.
 * @example
 * ```ts
 * const input = buildSummarizationInput(session, region, { system, tools });
 * const { summary } = await summarizer.summarize(input);
 * ```
 */
export function buildSummarizationInput(
  session: SessionLog,
  region: SurfaceRegion,
  fallback: SummarizationFallback,
): SummarizationInput {
  const derived = session.deriveMessages();
  const first = derived.seqs.indexOf(region.start);
  const last = derived.seqs.lastIndexOf(region.end);
  if (first < 0 || last < first) {
    throw new CompactionFailedError({
      stage: 'select',
      detail: `region ${region.start}-${region.end} is not on the current surface`,
    });
  }
  const messages: Message[] = derived.messages.slice(first, last + 1);
  let system = fallback.system;
  let tools = fallback.tools;
  const sources = registeredSources(session);
  if (sources) {
    // The session keeps the prompts requests were sent with (it may not hold those events).
    const sent = promptAt(sources, region.end);
    return {
      system: sent.system ?? system,
      tools: sent.tools ?? tools,
      messages,
      ...(fallback.focus ? { focus: fallback.focus } : {}),
    };
  }
  const header = latestRequestHeader(session, region.end);
  if (header) {
    const wantedSystem = header.systemHash;
    const wantedTools = header.toolsHash;
    for (const event of session.events({ to: region.end })) {
      const body = event.body as { hash?: string; text?: unknown; tools?: unknown };
      if (
        event.type === 'prompt/system' &&
        body.hash === wantedSystem &&
        typeof body.text === 'string'
      ) {
        system = body.text;
      } else if (
        event.type === 'tools/defined' &&
        body.hash === wantedTools &&
        Array.isArray(body.tools)
      ) {
        tools = body.tools as ToolSpec[];
      }
    }
  }
  return { system, tools, messages, ...(fallback.focus ? { focus: fallback.focus } : {}) };
}

function latestRequestHeader(
  session: SessionLog,
  atOrBefore: number,
): RequestHeaderBody | undefined {
  const events = session.events({ to: atOrBefore });
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === 'request/header') return event.body as RequestHeaderBody;
  }
  return undefined;
}
