import {
  type Message,
  type ModelClient,
  type SummarizationInput,
  type SummarizationResult,
  type Summarizer,
  textOf,
  type Usage,
} from '@spine/protocol';
import { SummaryEmptyError } from './errors.js';
import { clip, renderMessage } from './internal/render.js';

/** Options of {@link createModelSummarizer}. */
export interface ModelSummarizerOptions {
  /** The client to call. */
  model: ModelClient;
  /** The model id to ask. */
  modelId: string;
  /** Cap on the summary's length in tokens (default 4096). */
  maxOutputTokens?: number;
  /** Cap on each message's characters in the transcript (default 8000; head and tail kept). */
  maxMessageChars?: number;
}

/** The instructions of the structured five-section summary. */
export const SUMMARY_INSTRUCTIONS = `You write checkpoints of a coding agent's conversation so the agent can continue without the original messages.
Write these five sections, with these exact headings, and nothing else:

### Primary Request and Intent
What the user asked for, in their words where they matter, and every explicit constraint.
### Files and Code
Each file read or changed, by path, with what matters about it (functions, signatures, snippets that the next steps need).
### Errors and Fixes
Each error seen (quote the message), what caused it, and how it was fixed or that it is still open.
### Next Step
The step the agent was about to take, and anything left undone.
### Critical Context
Facts that must not be lost: environment details, commands and their outcomes, decisions and why, things the user said never to do.

Be specific: keep file paths, identifiers, commands and error strings verbatim. Do not invent facts.`;

/**
 * Creates a summariser that asks a model for the five-section structured summary of the seed
 * template (Primary Request and Intent, Files and Code, Errors and Fixes, Next Step, Critical
 * Context).
 *
 * @throws a {@link SummaryEmptyError} from `summarize` when the model returns no text; model errors
 * (`ModelError`) pass through.
 * @example
 * ```ts
 * const summarizer = createModelSummarizer({ model, modelId: 'deepseek-chat' });
 * const engine = createCompactionEngine({ meter, summarizer });
 * ```
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const maxChars = options.maxMessageChars ?? 8000;
  return {
    specificationVersion: 1,
    async summarize(input, callOptions = {}): Promise<SummarizationResult> {
      const request = {
        model: options.modelId,
        system: SUMMARY_INSTRUCTIONS,
        messages: [{ role: 'user' as const, content: transcriptOf(input, maxChars) }],
        tools: [],
        maxOutputTokens: options.maxOutputTokens ?? 4096,
      };
      let text = '';
      let finishReason = 'none';
      let usage: Usage | undefined;
      const streamOptions = callOptions.signal ? { signal: callOptions.signal } : {};
      for await (const event of options.model.stream(request, streamOptions)) {
        if (event.type === 'finish') {
          text = textOf(event.message);
          finishReason = event.finishReason;
          usage = event.usage;
        }
      }
      if (text.trim().length === 0) throw new SummaryEmptyError({ finishReason });
      return usage ? { summary: text.trim(), usage } : { summary: text.trim() };
    },
  };
}

/** Renders a summarisation input as the single user message the summariser model reads. */
export function transcriptOf(input: SummarizationInput, maxMessageChars = 8000): string {
  const tools = input.tools.map((tool) => `- ${tool.name}: ${clip(tool.description, 300)}`);
  const messages = input.messages.map((message: Message) => {
    const role =
      message.role === 'user'
        ? `user${message.source ? ` (${message.source})` : ''}`
        : message.role;
    return `<message role="${role}">\n${clip(renderMessage(message), maxMessageChars)}\n</message>`;
  });
  return [
    'The agent worked under this system prompt:',
    `<system-prompt>\n${clip(input.system, 6000)}\n</system-prompt>`,
    `Tools it could call:\n${tools.length > 0 ? tools.join('\n') : '(none)'}`,
    `The conversation to checkpoint:\n<conversation>\n${messages.join('\n')}\n</conversation>`,
    input.focus ? `The user asked the checkpoint to focus on: ${input.focus}` : '',
    'Write the checkpoint now, in the five sections.',
  ]
    .filter((part) => part.length > 0)
    .join('\n\n');
}
