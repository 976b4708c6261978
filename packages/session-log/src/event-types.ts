import type {
  BUILTIN_EVENT_TYPES,
  EventTypeDefinition,
  Message,
  SessionEvent,
} from '@spine/protocol';
import { BUILTIN_EVENT_SURFACES } from '@spine/protocol/core';
import { InvalidEventError } from './errors.js';
import { isObject, passesFastCheck } from './internal/fast-checks.js';

/** What a session knows about one event type. */
interface EventTypeEntry {
  surface: boolean;
  validate: ((body: unknown) => string | undefined) | undefined;
  project: ((event: SessionEvent) => readonly Message[]) | undefined;
}

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
   * @throws an {@link InvalidEventError} for a built-in type, a conflicting definition, or a
   *   surface type without `project`.
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
