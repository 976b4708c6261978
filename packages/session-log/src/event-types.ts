import type {
  BUILTIN_EVENT_TYPES,
  EventTypeDefinition,
  Message,
  SessionEvent,
} from '@spine/protocol';
import {
  ATTEMPT_OUTCOMES,
  BUILTIN_EVENT_SURFACES,
  PREFIX_CHANGE_CAUSES,
  TOOL_NAME_PATTERN,
  TOOL_RESULT_OUTCOMES,
  TURN_END_REASONS,
} from '@spine/protocol/core';
import { InvalidEventError } from './errors.js';

/** What a session knows about one event type. */
interface EventTypeEntry {
  surface: boolean;
  validate: ((body: unknown) => string | undefined) | undefined;
  project: ((event: SessionEvent) => readonly Message[]) | undefined;
}

type Loose = Record<string, unknown>;
type BodySchemas = typeof BUILTIN_EVENT_TYPES;

// The zod schemas of the built-in bodies. Importing @spine/protocol's main entry loads zod, which
// costs more than the rest of this package together; so a session loads it when it is created or
// opened (`loadBuiltinSchemas`), and `import '@spine/session-log'` stays quick.
let builtinSchemas: BodySchemas | undefined;
let loading: Promise<BodySchemas> | undefined;

/**
 * Loads the built-in body schemas (and with them zod) once; every later call resolves at once.
 * `Session.create` and `Session.open` await it, so `append` can validate synchronously.
 */
export function loadBuiltinSchemas(): Promise<unknown> {
  if (builtinSchemas) return Promise.resolve(builtinSchemas);
  loading ??= import('@spine/protocol').then((protocol) => {
    builtinSchemas = protocol.BUILTIN_EVENT_TYPES;
    return builtinSchemas;
  });
  return loading;
}

function schemaOf(type: string): BodySchemas[string]['body'] {
  const schemas = builtinSchemas;
  if (!schemas) {
    throw new Error(
      'internal: the built-in event schemas are not loaded (Session.create/open await loadBuiltinSchemas)',
    );
  }
  return schemas[type]!.body;
}

const OUTCOMES: ReadonlySet<string> = new Set(TOOL_RESULT_OUTCOMES);
const CAUSES: ReadonlySet<unknown> = new Set(PREFIX_CHANGE_CAUSES);
const ATTEMPT_OUTCOME_SET: ReadonlySet<string> = new Set(ATTEMPT_OUTCOMES);
const TURN_END_REASON_SET: ReadonlySet<string> = new Set(TURN_END_REASONS);

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
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

function isObject(value: unknown): value is Loose {
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

/** `seqs` of a request header: optional base/keep, then `[start, end]` pairs of positive seqs. */
function isRecordedSeqs(seqs: unknown): boolean {
  if (!isObject(seqs) || !Array.isArray(seqs.ranges)) return false;
  if (!(seqs.base === undefined || isPositive(seqs.base)) || !optionalCount(seqs.keep))
    return false;
  for (const range of seqs.ranges as unknown[]) {
    if (!Array.isArray(range) || range.length !== 2) return false;
    if (!isPositive(range[0]) || !isPositive(range[1])) return false;
  }
  return true;
}

function isPrefix(prefix: unknown): boolean {
  return (
    isObject(prefix) &&
    (prefix.previous === undefined || isPositive(prefix.previous)) &&
    isCount(prefix.kept) &&
    isCount(prefix.of) &&
    typeof prefix.extends === 'boolean' &&
    isCauses(prefix.causes)
  );
}

/** `chain` of a request header: the seq and value of the last chained line written. */
function isChainAnchor(chain: unknown): boolean {
  return isObject(chain) && isPositive(chain.seq) && typeof chain.h === 'string';
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
 * Hand-written checks for the built-in bodies an agent writes as it runs: true when `body`
 * certainly passes the schema of `type`. Each accepts only bodies its zod schema accepts
 * (anything unusual falls through to zod), so it is a pure speed-up; each is property-tested
 * against its schema (event-types.test.ts). They run after `isPlainJson`, so a JSON-valued field
 * (`meta`, tool `parameters`) only needs to be an object; every object they look into must not be
 * an array (`isPlainJson` walks only an array's items, so an array carrying an object's fields
 * would pass it and be written as `[]`). Covering every type of a plain step
 * keeps zod off the step's path (its first use in a session deoptimised the append path). One
 * function rather than one per type: called on every append, V8 optimises it with its helpers
 * inlined after a few hundred steps, where a check per type is called once per step and stays
 * unoptimised far longer.
 */
function passesFastCheck(type: string, body: Loose): boolean {
  // `body` is a non-array object (checked by the caller); only its fields are looked at here.
  switch (type) {
    case 'user/message':
      return (
        typeof body.content === 'string' &&
        typeof body.source === 'string' &&
        (body.pinned === undefined || typeof body.pinned === 'boolean') &&
        (body.meta === undefined || isObject(body.meta))
      );
    case 'assistant/message':
      return (
        isAssistantContent(body.content) &&
        typeof body.finishReason === 'string' &&
        optionalString(body.rawFinishReason) &&
        (body.usage === undefined || isUsage(body.usage)) &&
        optionalString(body.model) &&
        optionalString(body.provider) &&
        (body.attempt === undefined || (isCount(body.attempt) && (body.attempt as number) > 0))
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
    case 'tool/started':
      return (
        typeof body.toolCallId === 'string' &&
        typeof body.toolName === 'string' &&
        typeof body.arguments === 'string'
      );
    // Once per session and whenever the prompt or the tools change, on a step's path.
    case 'prompt/system':
      return typeof body.hash === 'string' && typeof body.text === 'string';
    case 'tools/defined':
      return typeof body.hash === 'string' && isToolSpecs(body.tools);
    // One per attempt: the step benchmark's per-step cost.
    case 'request/header':
      return (
        isCount(body.turn) &&
        isCount(body.step) &&
        isPositive(body.attempt) &&
        typeof body.model === 'string' &&
        typeof body.provider === 'string' &&
        typeof body.systemHash === 'string' &&
        typeof body.toolsHash === 'string' &&
        isCount(body.generation) &&
        isCount(body.messageCount) &&
        isRecordedSeqs(body.seqs) &&
        isStrings(body.addedHashes) &&
        typeof body.messagesHash === 'string' &&
        typeof body.requestHash === 'string' &&
        (body.hashing === undefined || body.hashing === 'chain/1') &&
        optionalCount(body.maxOutputTokens) &&
        body.reasoning === undefined &&
        optionalString(body.sessionId) &&
        isPrefix(body.prefix) &&
        optionalCount(body.estimatedTokens) &&
        (body.chain === undefined || isChainAnchor(body.chain))
      );
    // Once per step or turn: with the two above, every event of a plain step skips zod.
    case 'turn/start':
      return optionalString(body.inboxId);
    case 'step/start':
      return true;
    case 'request/context':
      return (
        isPositive(body.request) && isStringRecord(body.contexts) && isStringRecord(body.variables)
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
    default:
      return false;
  }
}

function builtinEntry(type: string): EventTypeEntry | undefined {
  const surface = BUILTIN_EVENT_SURFACES[type];
  if (!surface) return undefined;
  return {
    surface: surface === 'surface',
    validate: (body) => {
      // An array is never a body: one carrying a body's fields would be written as `[]`.
      if (isObject(body) && passesFastCheck(type, body)) return undefined;
      const result = schemaOf(type).safeParse(body);
      if (result.success) return undefined;
      const issue = result.error.issues[0];
      const path = issue && issue.path.length > 0 ? `body.${issue.path.join('.')}` : 'body';
      return `${path}: ${issue?.message ?? 'does not match the schema'}`;
    },
    project: undefined,
  };
}

/**
 * The event types one session accepts: the built-ins of `@spine/protocol` plus registered ones.
 * Internal helper of {@link Session}; entries are created on first use and cached.
 */
export class EventTypeRegistry {
  private readonly entries = new Map<string, EventTypeEntry>();
  private readonly custom = new Map<string, EventTypeDefinition>();

  /**
   * Registers a custom type. Registering the same definition twice is a no-op.
   *
   * @throws {InvalidEventError} for a built-in type, a conflicting definition, or a surface type without `project`.
   */
  register(definition: EventTypeDefinition): void {
    const type = definition.type;
    if (typeof type !== 'string' || !/^[a-z0-9-]+(\/[a-z0-9-]+)+$/i.test(type)) {
      throw new InvalidEventError({
        type: String(type),
        reason: 'a custom type must be "noun/verb"',
      });
    }
    if (BUILTIN_EVENT_SURFACES[type]) {
      throw new InvalidEventError({
        type,
        reason: 'it is a built-in type and cannot be redefined',
      });
    }
    const existing = this.custom.get(type);
    if (existing) {
      if (existing === definition) return;
      throw new InvalidEventError({ type, reason: 'a different definition is already registered' });
    }
    if (definition.surface && !definition.project) {
      throw new InvalidEventError({
        type,
        reason: 'a surface type needs a project(event) function',
      });
    }
    this.custom.set(type, definition);
    this.entries.set(type, {
      surface: definition.surface,
      validate: definition.validate,
      project: definition.project,
    });
  }

  /** The entry for `type`, or undefined when the type is unknown. */
  lookup(type: string): EventTypeEntry | undefined {
    let entry = this.entries.get(type);
    if (!entry) {
      entry = builtinEntry(type);
      if (entry) this.entries.set(type, entry);
    }
    return entry;
  }

  /** The registered custom definitions, in registration order. */
  definitions(): EventTypeDefinition[] {
    return [...this.custom.values()];
  }
}
