// Options and results of @spine/llm that more than one file uses.

/** How one OpenAI-compatible provider wants the body shaped. */
export interface OpenAIDialect {
  /** `tool-calls`: resend reasoning as `reasoning_content` on assistant messages with tool calls (DeepSeek). */
  reasoningHistory: 'tool-calls' | 'never';
  /** Field that carries the output cap. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** How `request.reasoning` is expressed: DeepSeek's `thinking` object, or `reasoning_effort` only. */
  reasoningStyle: 'deepseek' | 'effort';
  /** Send `stream_options.include_usage` (default true). */
  includeUsage: boolean;
}
