// Hand-written checks for the built-in bodies an agent writes as it runs: each returns true when
// `body` certainly passes its type's zod schema. Each accepts only bodies its schema accepts
// (anything unusual falls through to zod), so it is a pure speed-up; each is property-tested
// against its schema (event-types.test.ts). They run after `isPlainJson`, on a non-array object,
// so a JSON-valued field (`meta`, tool `parameters`) only needs to be an object; every object
// they look into must not be an array (`isPlainJson` walks only an array's items, so an array
// carrying an object's fields would pass it and be written as `[]`). Covering every type of a
// plain step keeps zod off the step's path (its first use in a session deoptimised the append
// path).
//
// The check of the largest loop body (`request/header`) calls no helpers: a step runs it before
// V8 optimises it (a session's first few hundred steps), where every call costs.
import {
  ATTEMPT_OUTCOMES,
  PREFIX_CHANGE_CAUSES,
  TOOL_NAME_PATTERN,
  TOOL_RESULT_OUTCOMES,
  TURN_END_REASONS,
} from '@spine/protocol/core';

/** A body as the checks read it: a non-array object. */
export type Loose = Record<string, unknown>;

const OUTCOMES: ReadonlySet<string> = new Set(TOOL_RESULT_OUTCOMES);
const CAUSES: ReadonlySet<unknown> = new Set(PREFIX_CHANGE_CAUSES);
const ATTEMPT_OUTCOME_SET: ReadonlySet<string> = new Set(ATTEMPT_OUTCOMES);
const TURN_END_REASON_SET: ReadonlySet<string> = new Set(TURN_END_REASONS);
/** `scope` of `tool/approval` (the schema's literals). */
const APPROVAL_SCOPES: ReadonlySet<string> = new Set(['once', 'session', 'rule', 'policy']);

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** One assistant part as `AssistantPartSchema` accepts it (text, reasoning or tool call). */
function isAssistantPart(part: unknown): boolean {
  if (!isObject(part)) return false;
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string';
    case 'reasoning':
      return (
        typeof part.text === 'string' &&
        optionalString(part.signature) &&
        optionalString(part.redactedData)
      );
    case 'tool-call':
      return (
        typeof part.id === 'string' &&
        typeof part.name === 'string' &&
        typeof part.arguments === 'string' &&
        optionalString(part.providerId)
      );
    default:
      return false;
  }
}

/** A usage record as `UsageSchema` accepts it (every bucket a non-negative integer). */
function isUsage(usage: unknown): boolean {
  if (!isObject(usage)) return false;
  const { costUsd } = usage;
  return (
    isCount(usage.inputTokens) &&
    isCount(usage.cacheReadTokens) &&
    isCount(usage.cacheWriteTokens) &&
    isCount(usage.outputTokens) &&
    (usage.reasoningTokens === undefined || isCount(usage.reasoningTokens)) &&
    (costUsd === undefined ||
      (typeof costUsd === 'number' && Number.isFinite(costUsd) && costUsd >= 0))
  );
}

function isPositive(value: unknown): boolean {
  return isCount(value) && (value as number) > 0;
}

function optionalCount(value: unknown): boolean {
  return value === undefined || isCount(value);
}

/** A non-array object (an array is never a body or a field the checks look into). */
export function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isCauses(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!CAUSES.has(value[i])) return false;
  return true;
}

/** A plain object whose values are all strings (`z.record(z.string(), z.string())`). */
function isStringRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return Object.getPrototypeOf(value) === Object.prototype;
}

function isStrings(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

/**
 * `tools` of `tools/defined`: tool specs with a valid name, a description and a parameters
 * object (its values are JSON already: the checks run after `isPlainJson`).
 */
function isToolSpecs(tools: unknown): boolean {
  if (!Array.isArray(tools)) return false;
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i] as unknown;
    if (!isObject(tool)) return false;
    if (typeof tool.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) return false;
    if (typeof tool.description !== 'string' || !isObject(tool.parameters)) return false;
  }
  return true;
}

function isAssistantContent(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) if (!isAssistantPart(content[i])) return false;
  return true;
}

/**
 * `request/header`, written once per attempt, checked without helper calls: a step runs this
 * check long before V8 optimises it, and there every call costs. Same rules as the helpers.
 */
function isRequestHeader(body: Loose): boolean {
  const { turn, step, attempt, generation, messageCount, maxOutputTokens, estimatedTokens } = body;
  if (
    !(
      Number.isSafeInteger(turn) &&
      (turn as number) >= 0 &&
      Number.isSafeInteger(step) &&
      (step as number) >= 0 &&
      Number.isSafeInteger(attempt) &&
      (attempt as number) > 0 &&
      typeof body.model === 'string' &&
      typeof body.provider === 'string' &&
      typeof body.systemHash === 'string' &&
      typeof body.toolsHash === 'string' &&
      Number.isSafeInteger(generation) &&
      (generation as number) >= 0 &&
      Number.isSafeInteger(messageCount) &&
      (messageCount as number) >= 0 &&
      typeof body.messagesHash === 'string' &&
      typeof body.requestHash === 'string' &&
      (body.hashing === undefined || body.hashing === 'chain/1') &&
      (maxOutputTokens === undefined ||
        (Number.isSafeInteger(maxOutputTokens) && (maxOutputTokens as number) >= 0)) &&
      body.reasoning === undefined &&
      (body.sessionId === undefined || typeof body.sessionId === 'string') &&
      (estimatedTokens === undefined ||
        (Number.isSafeInteger(estimatedTokens) && (estimatedTokens as number) >= 0))
    )
  ) {
    return false;
  }
  // seqs: optional base (positive) and keep (count), then [start, end] pairs of positive seqs.
  const seqs = body.seqs as Loose;
  if (seqs === null || typeof seqs !== 'object' || Array.isArray(seqs)) return false;
  const { base, keep, ranges } = seqs;
  if (base !== undefined && !(Number.isSafeInteger(base) && (base as number) > 0)) return false;
  if (keep !== undefined && !(Number.isSafeInteger(keep) && (keep as number) >= 0)) return false;
  if (!Array.isArray(ranges)) return false;
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i] as unknown;
    if (!Array.isArray(range) || range.length !== 2) return false;
    const start = range[0] as unknown;
    const end = range[1] as unknown;
    if (!(Number.isSafeInteger(start) && (start as number) > 0)) return false;
    if (!(Number.isSafeInteger(end) && (end as number) > 0)) return false;
  }
  const added = body.addedHashes;
  if (!Array.isArray(added)) return false;
  for (let i = 0; i < added.length; i++) if (typeof added[i] !== 'string') return false;
  const prefix = body.prefix as Loose;
  if (prefix === null || typeof prefix !== 'object' || Array.isArray(prefix)) return false;
  const { previous, kept, of, causes } = prefix;
  if (previous !== undefined && !(Number.isSafeInteger(previous) && (previous as number) > 0)) {
    return false;
  }
  if (!(Number.isSafeInteger(kept) && (kept as number) >= 0)) return false;
  if (!(Number.isSafeInteger(of) && (of as number) >= 0)) return false;
  if (typeof prefix.extends !== 'boolean' || !Array.isArray(causes)) return false;
  for (let i = 0; i < causes.length; i++) if (!CAUSES.has(causes[i])) return false;
  // chain: the seq and value of the last chained line written.
  const chain = body.chain as Loose | undefined;
  if (chain === undefined) return true;
  if (chain === null || typeof chain !== 'object' || Array.isArray(chain)) return false;
  return (
    Number.isSafeInteger(chain.seq) && (chain.seq as number) > 0 && typeof chain.h === 'string'
  );
}

/**
 * True when `body` (a non-array object) certainly passes the schema of `type`; false for a type
 * without a fast check. One function for every type, its cases in the order a plain step writes
 * them: called on each append, it stays warm and is optimised after a few hundred steps, where a
 * function per type is called once per step and costs more until then (measured).
 */
export function passesFastCheck(type: string, body: Loose): boolean {
  switch (type) {
    case 'turn/start':
      return body.inboxId === undefined || typeof body.inboxId === 'string';
    case 'user/message':
      return (
        typeof body.content === 'string' &&
        typeof body.source === 'string' &&
        (body.pinned === undefined || typeof body.pinned === 'boolean') &&
        (body.meta === undefined || isObject(body.meta))
      );
    case 'step/start':
      // Its schema, `z.object({})`, names no field; unknown ones pass.
      return true;
    case 'request/header':
      return isRequestHeader(body);
    case 'request/context':
      return (
        isPositive(body.request) && isStringRecord(body.contexts) && isStringRecord(body.variables)
      );
    case 'assistant/message':
      return (
        isAssistantContent(body.content) &&
        typeof body.finishReason === 'string' &&
        optionalString(body.rawFinishReason) &&
        (body.usage === undefined || isUsage(body.usage)) &&
        optionalString(body.model) &&
        optionalString(body.provider) &&
        (body.attempt === undefined || isPositive(body.attempt))
      );
    case 'assistant/attempt':
      return (
        isPositive(body.request) &&
        isPositive(body.attempt) &&
        ATTEMPT_OUTCOME_SET.has(body.outcome as string) &&
        optionalString(body.code) &&
        optionalString(body.message) &&
        (body.retryable === undefined || typeof body.retryable === 'boolean') &&
        (body.status === undefined || Number.isSafeInteger(body.status)) &&
        optionalCount(body.cacheHitTokens) &&
        optionalCount(body.cacheMissTokens) &&
        (body.usage === undefined || isUsage(body.usage)) &&
        (body.messageSeq === undefined || isPositive(body.messageSeq)) &&
        (body.prefixCauses === undefined || isCauses(body.prefixCauses))
      );
    case 'step/end':
      return (
        optionalString(body.finishReason) &&
        optionalCount(body.toolCalls) &&
        (body.interrupted === undefined || typeof body.interrupted === 'boolean')
      );
    case 'turn/end':
      return (
        TURN_END_REASON_SET.has(body.reason as string) &&
        optionalCount(body.steps) &&
        (body.usage === undefined || isUsage(body.usage)) &&
        (body.error === undefined ||
          (isObject(body.error) &&
            typeof body.error.code === 'string' &&
            typeof body.error.message === 'string')) &&
        (body.deniedTools === undefined || isStrings(body.deniedTools))
      );
    // A step with tool calls.
    case 'tool/started':
      return (
        typeof body.toolCallId === 'string' &&
        typeof body.toolName === 'string' &&
        typeof body.arguments === 'string'
      );
    case 'tool/approval':
      return (
        typeof body.toolCallId === 'string' &&
        typeof body.toolName === 'string' &&
        (body.decision === 'allow' || body.decision === 'deny') &&
        typeof body.by === 'string' &&
        optionalString(body.reason) &&
        (body.scope === undefined || APPROVAL_SCOPES.has(body.scope as string)) &&
        // An escalation record (a sandbox exception asked for) goes through its schema.
        body.escalation === undefined
      );
    case 'tool/result':
      return (
        typeof body.toolCallId === 'string' &&
        typeof body.toolName === 'string' &&
        typeof body.content === 'string' &&
        typeof body.isError === 'boolean' &&
        (body.outcome === undefined || OUTCOMES.has(body.outcome as string)) &&
        (body.meta === undefined || isObject(body.meta))
      );
    // Once per session and whenever the prompt or the tools change.
    case 'prompt/system':
      return typeof body.hash === 'string' && typeof body.text === 'string';
    case 'tools/defined':
      return typeof body.hash === 'string' && isToolSpecs(body.tools);
    default:
      return false;
  }
}
