// The request rules of the Anthropic Messages API that a client can break without noticing on a
// lenient loopback server. The scripted server answers 400 `invalid_request_error` with the first
// broken rule, as the real API does, so every end-to-end test also checks the request's shape.

type Block = Record<string, unknown> & { type?: unknown };
type Turn = { role?: unknown; content?: unknown };

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;

function blocksOf(turn: Turn): Block[] {
  if (typeof turn.content === 'string') return [{ type: 'text', text: turn.content }];
  return Array.isArray(turn.content) ? (turn.content as Block[]) : [];
}

function countBreakpoints(value: unknown): number {
  if (Array.isArray(value))
    return value.reduce((sum: number, item) => sum + countBreakpoints(item), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let count = 'cache_control' in value ? 1 : 0;
  for (const [key, child] of Object.entries(value)) {
    if (key !== 'cache_control' && key !== 'input_schema' && key !== 'input')
      count += countBreakpoints(child);
  }
  return count;
}

function checkTurns(messages: Turn[]): string | undefined {
  if (messages.length === 0) return 'messages: at least one message is required';
  if (messages[0]?.role !== 'user')
    return 'messages.0.role: the first message must use the "user" role';
  for (const [index, turn] of messages.entries()) {
    const where = `messages.${index}`;
    if (turn.role !== 'user' && turn.role !== 'assistant')
      return `${where}.role: must be "user" or "assistant"`;
    if (index > 0 && messages[index - 1]?.role === turn.role)
      return `${where}: roles must alternate between "user" and "assistant"`;
    const blocks = blocksOf(turn);
    if (blocks.length === 0) return `${where}.content: at least one content block is required`;
    for (const [position, block] of blocks.entries()) {
      if (block.type === 'text' && block.text === '')
        return `${where}.content.${position}.text: text content blocks must be non-empty`;
      if (block.type === 'tool_use' && !ID_PATTERN.test(String(block.id)))
        return `${where}.content.${position}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (block.type === 'tool_use' && (typeof block.input !== 'object' || block.input === null))
        return `${where}.content.${position}.tool_use.input: Input should be a valid dictionary`;
    }
    if (turn.role !== 'assistant') continue;
    const used = blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => String(block.id));
    if (used.length === 0) continue;
    const next = messages[index + 1];
    if (next === undefined) continue;
    const answers = blocksOf(next);
    const leading = answers.findIndex((block) => block.type !== 'tool_result');
    const results = (leading === -1 ? answers : answers.slice(0, leading)).map((block) =>
      String(block.tool_use_id),
    );
    const missing = used.filter((id) => !results.includes(id));
    if (missing.length > 0)
      return `${where}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}. Each tool_use block must have a corresponding tool_result block in the next message.`;
  }
  return undefined;
}

/** With thinking on, the assistant turn answered by the last tool results must open with thinking. */
function unsignedToolTurn(messages: Turn[]): string | undefined {
  const last = messages.length - 1;
  const answers = blocksOf(messages[last] ?? {});
  if (messages[last]?.role !== 'user' || answers[0]?.type !== 'tool_result') return undefined;
  const first = blocksOf(messages[last - 1] ?? {})[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
}

/**
 * The first rule of the Messages API that `body` breaks, worded like the API's own error
 * message, or `undefined` when the request would be accepted.
 */
export function invalidMessagesRequest(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number' || body.max_tokens < 1)
    return 'max_tokens: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
  for (const [index, tool] of tools.entries()) {
    if (!TOOL_NAME_PATTERN.test(String(tool.name)))
      return `tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
  }
  const thinking = body.thinking as { type?: string; budget_tokens?: number } | undefined;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens ?? 0;
    if (budget < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (budget >= body.max_tokens)
      return '`max_tokens` must be greater than `thinking.budget_tokens`';
    if (body.temperature !== undefined && body.temperature !== 1)
      return '`temperature` may only be set to 1 when thinking is enabled';
  }
  const breakpoints = countBreakpoints([body.system, body.tools, body.messages]);
  if (breakpoints > 4)
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  const turns = checkTurns(body.messages as Turn[]);
  if (turns !== undefined) return turns;
  if (thinking?.type === 'enabled') {
    const unsigned = unsignedToolTurn(body.messages as Turn[]);
    if (unsigned !== undefined) return unsigned;
  }
  const usesTools = (body.messages as Turn[]).some((turn) =>
    blocksOf(turn).some((block) => block.type === 'tool_use' || block.type === 'tool_result'),
  );
  if (usesTools && tools.length === 0)
    return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  return undefined;
}
