import { z } from 'zod';
import { SurfaceRegionSchema } from './compaction-bodies.js';
import { BUILTIN_EVENT_TYPES, FORMAT_VERSION, SurfaceOpSchema } from './events.js';
import { HookInputSchema } from './hook-bodies.js';
import { ImagePartSchema } from './images.js';
import { type JsonObject, JsonValueSchema } from './json.js';
import { AssistantPartSchema } from './messages.js';
import { ToolSpecSchema } from './tool-spec.js';
import { UsageSchema } from './usage.js';

/** What each built-in event type records, one sentence each; the catalogue's descriptions. */
const SUMMARIES: Readonly<Record<string, string>> = {
  'session/header': 'Always seq 1: the format version, session id and creation metadata.',
  'session/recovered': 'A reopen repaired the log (a torn last line, interrupted tool calls).',
  'session/forked': 'Reserved, not written today (a fork records its origin in the header).',
  'turn/start': 'A turn begins (before its user message).',
  'turn/end': 'A turn ended: why, how many steps, the usage and any error.',
  'step/start': 'A step (one model request and its tools) begins.',
  'step/end': 'A step ended: its finish reason and tool-call count, or that it was interrupted.',
  'user/message': 'A user-role message on the surface: typed input, runtime context, a checkpoint.',
  'assistant/message': 'The final message of one successful model attempt, on the surface.',
  'assistant/attempt':
    'How one network request ended (ok, error, aborted, interrupted) and its usage.',
  'llm/retry': 'A retry of a failed model request was decided.',
  'llm/retry-started': 'The next attempt of a model request begins.',
  'request/header': 'Everything needed to rebuild one model request from the log, with its hashes.',
  'request/context': 'The dynamic context snapshot (runtime contexts, variables) a request used.',
  'prompt/system': 'A system prompt text, stored once per content hash.',
  'tools/defined': 'A tool list, stored once per content hash.',
  'agent/inbox/spliced': 'A change to an inbox queue, as a splice.',
  'agent/aborted': 'A turn was aborted by its signal, and where.',
  'agent/child/start': 'A subagent (child session) was started for a `task` tool call.',
  'agent/child/end':
    'A subagent ended (or was closed after a crash): its outcome, usage and changes.',
  'tool/approval': 'One approval decision for a tool call.',
  'tool/started': 'A tool call is about to execute (written before it runs).',
  'tool/progress': 'Reserved, not written today (tool progress is live only).',
  'tool/result': 'The result of a tool call exactly as the model sees it, on the surface.',
  'tool/output': 'The whole output of a tool whose result was cut to fit the context window.',
  'compaction/start': 'A compaction began; its seq is the compaction id.',
  'compaction/summary': 'What a compaction checkpoint was built from (summary, facts, usage).',
  'compaction/end': 'A compaction committed its surface replace.',
  'compaction/failed': 'A compaction failed; the surface is unchanged.',
  'compaction/candidate': 'A checkpoint prepared in the background, not yet committed.',
  'compaction/discarded': 'A background candidate was dropped.',
  'workspace/checkpoint': 'The workspace files were recorded (before a step that may change them).',
  'workspace/restored': 'The workspace was put back to a checkpoint (rewind, undo, abort).',
  'tools/changed': 'A tool source (an MCP server) changed the tool set before the next step.',
  'sampling/answered':
    "A tool source's (an MCP server's) model request, answered by the session's model.",
  'lease/takeover':
    'A writer took over the session from one whose lease expired or whose process exited.',
  'session/title':
    'The session was (re)titled: from its first request (`auto`) or by a person; the latest wins.',
  'plan/mode':
    'Plan mode was entered, or left to implement the plan under the previous policy; the latest wins.',
  'session/config':
    'A setting of the running session changed (approval preset, model), by an editor or a person; the latest wins.',
  'job/start':
    'A background shell job was started (`bash` with `run_in_background`): id, command, pid and start time.',
  'job/end':
    'A background job ended: on its own, by job_kill, by a person, or because the agent exited.',
  'job/recovered':
    'A resume found a job that was running when the agent stopped: still running (same pid and start time) or gone, outcome unknown.',
  'hook/run':
    'A user hook command ran: its event, command, exit code, duration, decision and (cut) output.',
  'loop/detected':
    'The loop detector found the model repeating itself: first told (`noted`), then the turn ended `stuck` (`stopped`).',
  'budget/exceeded':
    'A cost or token budget was reached before a model request; the turn ends with reason `budget`.',
};

/** `request/header` → `RequestHeaderBody`: the `$defs` name of a type's body. */
export function bodyDefinitionName(type: string): string {
  const words = type.split(/[/-]/).filter((word) => word.length > 0);
  return `${words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('')}Body`;
}

function strip(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * The whole event catalogue as one JSON Schema document (draft 2020-12): the schema of one line
 * of a session file. Each built-in type's body is checked against its own definition in `$defs`
 * (named by {@link bodyDefinitionName}); any other type is a custom one and its body any JSON.
 * Objects accept fields a definition does not name, as the readers do. The document's `$id`
 * carries {@link FORMAT_VERSION}; `x-` keywords are avoided so strict validators accept it.
 *
 * @example
 * ```ts
 * import { Ajv2020 } from 'ajv/dist/2020.js';
 * const validate = new Ajv2020().compile(sessionEventJsonSchema());
 * for (const line of text.split('\n').filter(Boolean)) validate(JSON.parse(line));
 * ```
 */
export function sessionEventJsonSchema(): JsonObject {
  const registry = z.registry<{ id: string }>();
  registry.add(JsonValueSchema, { id: 'JsonValue' });
  registry.add(UsageSchema, { id: 'Usage' });
  registry.add(SurfaceRegionSchema, { id: 'SurfaceRegion' });
  registry.add(AssistantPartSchema, { id: 'AssistantPart' });
  registry.add(ImagePartSchema, { id: 'ImagePart' });
  registry.add(ToolSpecSchema, { id: 'ToolSpec' });
  registry.add(SurfaceOpSchema, { id: 'SurfaceOp' });
  // Not an event body: what a user hook command reads on stdin, published with the log format.
  registry.add(HookInputSchema, { id: 'HookInput' });
  const types = Object.keys(BUILTIN_EVENT_TYPES);
  for (const type of types) {
    const entry = BUILTIN_EVENT_TYPES[type];
    if (!entry) continue;
    registry.add(entry.body, { id: bodyDefinitionName(type) });
  }
  const generated = z.toJSONSchema(registry, {
    io: 'input',
    target: 'draft-2020-12',
    uri: (id) => `#/$defs/${id}`,
  }).schemas;
  const defs: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(generated)) defs[id] = strip(schema as JsonObject);
  if (defs.HookInput) {
    defs.HookInput.description =
      'What a user hook command reads on stdin (one JSON object per run), by `event`; not a log line.';
  }
  for (const type of types) {
    const def = defs[bodyDefinitionName(type)];
    if (def) def.description = `Body of \`${type}\`: ${SUMMARIES[type] ?? 'a built-in event.'}`;
  }
  const positive = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
  const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
  const perType = types.map((type) => {
    const surface = BUILTIN_EVENT_TYPES[type]?.surface === 'surface';
    const properties: JsonObject = { body: { $ref: `#/$defs/${bodyDefinitionName(type)}` } };
    // Only surface types may carry a surface op.
    if (!surface) properties.surfaceOp = false;
    return {
      if: { properties: { type: { const: type } }, required: ['type'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
      then: { properties },
    };
  });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:spine:session-log:format:${FORMAT_VERSION}`,
    title: `Spine session log event (format version ${FORMAT_VERSION})`,
    description:
      'One line of a Spine JSONL session file. Seq 1 is `session/header`, whose `body.formatVersion` names the format version this schema describes. Types not listed are custom: their body is any JSON.',
    type: 'object',
    properties: {
      seq: { ...positive, description: '1, 2, 3 … gapless, assigned by append.' },
      type: {
        type: 'string',
        minLength: 1,
        description: 'The event type, `noun/verb`.',
        examples: types,
      },
      at: { type: 'string', description: 'ISO-8601 time of the append.' },
      turn: { ...count, description: 'The turn this event belongs to.' },
      step: { ...count, description: 'The step (within the turn) this event belongs to.' },
      body: { $ref: '#/$defs/JsonValue' },
      surfaceOp: { $ref: '#/$defs/SurfaceOp' },
      sourceEventSeqs: { type: 'array', items: positive },
      h: {
        type: 'string',
        pattern: '^[0-9a-f]{32}$',
        description:
          "The line's chain value, always its last key (JSONL store; absent in logs written before the chain): the first 128 bits, hex, of SHA-256 over the previous line's value (nothing for the first chained line) followed by this line's bytes up to `,\"h\":`. Readers drop it; `spine verify` checks it.",
      },
    },
    required: ['seq', 'type', 'at', 'body'],
    allOf: perType,
    $defs: defs,
  };
}
