// Hand-written checks of the built-in bodies an agent writes as it runs, so that zod stays off a
// step's path. Each accepts only bodies its zod schema in @spine/protocol accepts (anything
// unusual falls through to zod), so it is a pure speed-up; each is property-tested against its
// schema (event-types.test.ts). They run after `isPlainJson`, so a JSON-valued field (`meta`, tool
// `parameters`) only needs to be an object.
//
// The checks are tables (field, rule) read by one loop rather than one function per type: that
// loop runs for every field of every append, so V8 optimises it within the first few dozen
// steps of a session, where a function per type (or one switch over all types) is called a few
// times per step and stays unoptimised for hundreds of steps; unoptimised, the per-step checks
// cost several microseconds.
import {
  ATTEMPT_OUTCOMES,
  PREFIX_CHANGE_CAUSES,
  TOOL_NAME_PATTERN,
  TOOL_RESULT_OUTCOMES,
  TURN_END_REASONS,
} from '@spine/protocol/core';

type Loose = Record<string, unknown>;

/** A rule for one field: one of the kinds below, a nested table, or a predicate. */
type Rule = number | Fields | ((value: unknown) => boolean);
/** Alternating field names and rules: `['turn', COUNT, 'model', STRING, …]`. */
type Fields = readonly (string | Rule)[];

// The kinds. OPT_ variants also accept a missing field (undefined).
const STRING = 0;
const OPT_STRING = 1;
const BOOLEAN = 2;
const OPT_BOOLEAN = 3;
/** A non-negative safe integer. */
const COUNT = 4;
const OPT_COUNT = 5;
/** A positive safe integer (a seq, an attempt number). */
const POSITIVE = 6;
const OPT_POSITIVE = 7;
/** A non-null, non-array object (its contents are JSON already). */
const OBJECT = 8;
const OPT_OBJECT = 9;
/** Must be missing. */
const ABSENT = 10;

function isObject(value: unknown): value is Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function passesKind(kind: number, value: unknown): boolean {
  if (value === undefined) return (kind & 1) === 1 || kind === ABSENT;
  switch (kind) {
    case STRING:
    case OPT_STRING:
      return typeof value === 'string';
    case BOOLEAN:
    case OPT_BOOLEAN:
      return typeof value === 'boolean';
    case COUNT:
    case OPT_COUNT:
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case POSITIVE:
    case OPT_POSITIVE:
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
    case OBJECT:
    case OPT_OBJECT:
      return isObject(value);
    default:
      return false;
  }
}

/** True when `value` is an object whose fields pass `fields` (other fields are not looked at). */
function passesFields(fields: Fields, value: unknown): boolean {
  if (!isObject(value)) return false;
  for (let i = 0; i < fields.length; i += 2) {
    const field = value[fields[i] as string];
    const rule = fields[i + 1] as Rule;
    if (typeof rule === 'number') {
      if (!passesKind(rule, field)) return false;
    } else if (typeof rule === 'function') {
      if (!rule(field)) return false;
    } else if (!passesFields(rule, field)) return false;
  }
  return true;
}

/** The rule made optional: a missing field passes. */
function optional(rule: Fields | ((value: unknown) => boolean)): (value: unknown) => boolean {
  return typeof rule === 'function'
    ? (value) => value === undefined || rule(value)
    : (value) => value === undefined || passesFields(rule, value);
}

function oneOf(values: readonly string[]): (value: unknown) => boolean {
  const set: ReadonlySet<unknown> = new Set(values);
  return (value) => set.has(value);
}

function arrayOf(item: (value: unknown) => boolean): (value: unknown) => boolean {
  return (value) => {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (!item(value[i])) return false;
    return true;
  };
}

const isString = (value: unknown): boolean => typeof value === 'string';
const isCause = oneOf(PREFIX_CHANGE_CAUSES);

/** `z.record(z.string(), z.string())`: a plain object whose values are all strings. */
function isStringRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return Object.getPrototypeOf(value) === Object.prototype;
}

/** `UsageSchema`: every bucket a non-negative integer, the cost a finite non-negative number. */
const USAGE: Fields = [
  'inputTokens',
  COUNT,
  'cacheReadTokens',
  COUNT,
  'cacheWriteTokens',
  COUNT,
  'outputTokens',
  COUNT,
  'reasoningTokens',
  OPT_COUNT,
  'costUsd',
  (value: unknown) =>
    value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0),
];

/** The parts of an assistant message (`AssistantPartSchema`), by `type`. */
const PARTS: ReadonlyMap<unknown, Fields> = new Map([
  ['text', ['text', STRING]],
  ['reasoning', ['text', STRING, 'signature', OPT_STRING, 'redactedData', OPT_STRING]],
  ['tool-call', ['id', STRING, 'name', STRING, 'arguments', STRING, 'providerId', OPT_STRING]],
]);

const isAssistantPart = (part: unknown): boolean => {
  const fields = isObject(part) ? PARTS.get(part.type) : undefined;
  return fields !== undefined && passesFields(fields, part);
};

/** A tool spec of `tools/defined`: a valid name, a description and a parameters object. */
const TOOL_SPEC: Fields = [
  'name',
  (name: unknown) => typeof name === 'string' && TOOL_NAME_PATTERN.test(name),
  'description',
  STRING,
  'parameters',
  OBJECT,
];

/** A `[start, end]` pair of positive seqs in a request header's `seqs.ranges`. */
const isSeqRange = (range: unknown): boolean =>
  Array.isArray(range) &&
  range.length === 2 &&
  passesKind(POSITIVE, range[0]) &&
  passesKind(POSITIVE, range[1]);

/** The rules per built-in type; a type not listed here always goes to its schema. */
const BODIES: ReadonlyMap<string, Fields> = new Map<string, Fields>([
  [
    'user/message',
    ['content', STRING, 'source', STRING, 'pinned', OPT_BOOLEAN, 'meta', OPT_OBJECT],
  ],
  [
    'assistant/message',
    [
      'content',
      arrayOf(isAssistantPart),
      'finishReason',
      STRING,
      'rawFinishReason',
      OPT_STRING,
      'usage',
      optional(USAGE),
      'model',
      OPT_STRING,
      'provider',
      OPT_STRING,
      'attempt',
      OPT_POSITIVE,
    ],
  ],
  [
    'tool/result',
    [
      'toolCallId',
      STRING,
      'toolName',
      STRING,
      'content',
      STRING,
      'isError',
      BOOLEAN,
      'outcome',
      optional(oneOf(TOOL_RESULT_OUTCOMES)),
      'meta',
      OPT_OBJECT,
    ],
  ],
  ['tool/started', ['toolCallId', STRING, 'toolName', STRING, 'arguments', STRING]],
  // Once per session and whenever the prompt or the tools change, on a step's path.
  ['prompt/system', ['hash', STRING, 'text', STRING]],
  ['tools/defined', ['hash', STRING, 'tools', arrayOf((tool) => passesFields(TOOL_SPEC, tool))]],
  // The events of every step.
  ['turn/start', ['inboxId', OPT_STRING]],
  ['step/start', []],
  [
    'request/header',
    [
      'turn',
      COUNT,
      'step',
      COUNT,
      'attempt',
      POSITIVE,
      'model',
      STRING,
      'provider',
      STRING,
      'systemHash',
      STRING,
      'toolsHash',
      STRING,
      'generation',
      COUNT,
      'messageCount',
      COUNT,
      // Optional base and keep, then the `[start, end]` ranges of the request's message seqs.
      'seqs',
      ['base', OPT_POSITIVE, 'keep', OPT_COUNT, 'ranges', arrayOf(isSeqRange)],
      'addedHashes',
      arrayOf(isString),
      'messagesHash',
      STRING,
      'requestHash',
      STRING,
      'hashing',
      (value: unknown) => value === undefined || value === 'chain/1',
      'maxOutputTokens',
      OPT_COUNT,
      'reasoning',
      ABSENT,
      'sessionId',
      OPT_STRING,
      'prefix',
      [
        'previous',
        OPT_POSITIVE,
        'kept',
        COUNT,
        'of',
        COUNT,
        'extends',
        BOOLEAN,
        'causes',
        arrayOf(isCause),
      ],
      'estimatedTokens',
      OPT_COUNT,
      // The seq and value of the last chained line written.
      'chain',
      optional(['seq', POSITIVE, 'h', STRING]),
    ],
  ],
  [
    'request/context',
    ['request', POSITIVE, 'contexts', isStringRecord, 'variables', isStringRecord],
  ],
  [
    'assistant/attempt',
    [
      'request',
      POSITIVE,
      'attempt',
      POSITIVE,
      'outcome',
      oneOf(ATTEMPT_OUTCOMES),
      'code',
      OPT_STRING,
      'message',
      OPT_STRING,
      'retryable',
      OPT_BOOLEAN,
      'status',
      (value: unknown) => value === undefined || Number.isSafeInteger(value),
      'cacheHitTokens',
      OPT_COUNT,
      'cacheMissTokens',
      OPT_COUNT,
      'usage',
      optional(USAGE),
      'messageSeq',
      OPT_POSITIVE,
      'prefixCauses',
      optional(arrayOf(isCause)),
    ],
  ],
  ['step/end', ['finishReason', OPT_STRING, 'toolCalls', OPT_COUNT, 'interrupted', OPT_BOOLEAN]],
  [
    'turn/end',
    [
      'reason',
      oneOf(TURN_END_REASONS),
      'steps',
      OPT_COUNT,
      'usage',
      optional(USAGE),
      'error',
      optional(['code', STRING, 'message', STRING]),
      'deniedTools',
      optional(arrayOf(isString)),
    ],
  ],
]);

/**
 * True when `body` certainly passes the schema of the built-in `type`; false when it may not
 * (the caller then asks the schema). `body` has passed `isPlainJson`.
 */
export function passesFastCheck(type: string, body: unknown): boolean {
  const fields = BODIES.get(type);
  return fields !== undefined && passesFields(fields, body);
}
