import type { EventTypeDefinition, Message, SessionEvent } from '@spine/protocol';
import { BUILTIN_EVENT_TYPES, ToolResultBodySchema } from '@spine/protocol';
import { InvalidEventError } from './errors.js';

/** What a session knows about one event type. */
interface EventTypeEntry {
  surface: boolean;
  validate: ((body: unknown) => string | undefined) | undefined;
  project: ((event: SessionEvent) => readonly Message[]) | undefined;
}

type Loose = Record<string, unknown>;
// The outcome values, read from the schema whether it is a zod enum (`options`) or a literal
// union (`values`); should neither be there, every outcome simply goes through zod.
const outcomeSchema = ToolResultBodySchema.shape.outcome.unwrap() as unknown as {
  options?: readonly string[];
  values?: ReadonlySet<string>;
};
const OUTCOMES: ReadonlySet<string> = new Set(
  outcomeSchema.options ?? (outcomeSchema.values ? [...outcomeSchema.values] : []),
);

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** One assistant part as `AssistantPartSchema` accepts it (text, reasoning or tool call). */
function isAssistantPart(part: unknown): boolean {
  if (part === null || typeof part !== 'object') return false;
  const loose = part as Loose;
  switch (loose.type) {
    case 'text':
      return typeof loose.text === 'string';
    case 'reasoning':
      return (
        typeof loose.text === 'string' &&
        optionalString(loose.signature) &&
        optionalString(loose.redactedData)
      );
    case 'tool-call':
      return (
        typeof loose.id === 'string' &&
        typeof loose.name === 'string' &&
        typeof loose.arguments === 'string' &&
        optionalString(loose.providerId)
      );
    default:
      return false;
  }
}

/** A usage record as `UsageSchema` accepts it (every bucket a non-negative integer). */
function isUsage(usage: unknown): boolean {
  if (usage === null || typeof usage !== 'object') return false;
  const loose = usage as Loose;
  return (
    isCount(loose.inputTokens) &&
    isCount(loose.cacheReadTokens) &&
    isCount(loose.cacheWriteTokens) &&
    isCount(loose.outputTokens) &&
    (loose.reasoningTokens === undefined || isCount(loose.reasoningTokens)) &&
    (loose.costUsd === undefined ||
      (typeof loose.costUsd === 'number' && Number.isFinite(loose.costUsd) && loose.costUsd >= 0))
  );
}

function isAssistantContent(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) if (!isAssistantPart(content[i])) return false;
  return true;
}

/**
 * Hand-written checks for the hottest built-in bodies. Each accepts only bodies its zod schema
 * accepts (anything unusual, such as `meta`, falls through to zod), so it is a pure speed-up.
 */
const FAST_CHECKS: Readonly<Record<string, (body: Loose) => boolean>> = {
  'user/message': (body) =>
    typeof body.content === 'string' &&
    typeof body.source === 'string' &&
    (body.pinned === undefined || typeof body.pinned === 'boolean') &&
    body.meta === undefined,
  'assistant/message': (body) =>
    isAssistantContent(body.content) &&
    typeof body.finishReason === 'string' &&
    optionalString(body.rawFinishReason) &&
    (body.usage === undefined || isUsage(body.usage)) &&
    optionalString(body.model) &&
    optionalString(body.provider) &&
    (body.attempt === undefined || (isCount(body.attempt) && (body.attempt as number) > 0)),
  'tool/result': (body) =>
    typeof body.toolCallId === 'string' &&
    typeof body.toolName === 'string' &&
    typeof body.content === 'string' &&
    typeof body.isError === 'boolean' &&
    (body.outcome === undefined || OUTCOMES.has(body.outcome as string)) &&
    body.meta === undefined,
};

function builtinEntry(type: string): EventTypeEntry | undefined {
  const builtin = BUILTIN_EVENT_TYPES[type];
  if (!builtin) return undefined;
  const schema = builtin.body;
  const fast = FAST_CHECKS[type];
  return {
    surface: builtin.surface === 'surface',
    validate: schema
      ? (body) => {
          if (fast && body !== null && typeof body === 'object' && fast(body as Loose))
            return undefined;
          const result = schema.safeParse(body);
          if (result.success) return undefined;
          const issue = result.error.issues[0];
          const path = issue && issue.path.length > 0 ? `body.${issue.path.join('.')}` : 'body';
          return `${path}: ${issue?.message ?? 'does not match the schema'}`;
        }
      : undefined,
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
    if (BUILTIN_EVENT_TYPES[type]) {
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
