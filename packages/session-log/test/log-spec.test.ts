import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUILTIN_EVENT_TYPES,
  bodyDefinitionName,
  FORMAT_VERSION,
  type SessionEvent,
  sessionEventJsonSchema,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EVENTS_PATH,
  renderCatalogue,
  SCHEMA_PATH,
  sameSchema,
  withSection,
} from '../../../scripts/log-spec.mjs';
import { SAMPLE_BODIES } from './log-spec-samples.js';

// The log format is the spec: the JSON Schema document generated from @spine/protocol is checked
// in, validates real session files with a standard validator (ajv, 2020 dialect, strict mode),
// and gives the same verdict as the zod schemas that append uses.

const root = join(import.meta.dirname, '../../..');
const EXAMPLE = join(root, 'apps/reference-cli/examples/sessions/example-fix-add.jsonl');

const schema = sessionEventJsonSchema();
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateLine = ajv.compile(schema);

function lines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown);
}

function problems(event: unknown): string[] {
  if (validateLine(event)) return [];
  return (validateLine.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

/** The ajv validator of one built-in type's body definition. */
function bodyValidator(type: string) {
  const validate = ajv.getSchema(`${String(schema.$id)}#/$defs/${bodyDefinitionName(type)}`);
  if (!validate) throw new Error(`no definition for ${type}`);
  return validate;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the published log-format schema', () => {
  it('is checked in as generated, and so is the catalogue page', () => {
    expect(sameSchema(readFileSync(SCHEMA_PATH, 'utf8'), schema)).toBe(true);
    const page = readFileSync(EVENTS_PATH, 'utf8');
    expect(withSection(page, renderCatalogue(schema))).toBe(page);
  });

  it('names the format version and has one body definition per built-in type', () => {
    expect(schema.$id).toBe(`urn:spine:session-log:format:${FORMAT_VERSION}`);
    const types = Object.keys(BUILTIN_EVENT_TYPES);
    expect(types.length).toBeGreaterThanOrEqual(29);
    const defs = schema.$defs as Record<string, unknown>;
    for (const type of types) expect(defs[bodyDefinitionName(type)], type).toBeDefined();
    expect(Object.keys(SAMPLE_BODIES).sort()).toEqual([...types].sort());
  });

  it("validates every line of the CLI's recorded example session", () => {
    const events = lines(EXAMPLE);
    expect(events.length).toBeGreaterThan(20);
    for (const event of events) expect(problems(event), JSON.stringify(event)).toEqual([]);
  });

  it('validates a session file written by the JSONL store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-log-spec-'));
    dirs.push(dir);
    const session = await Session.create({ store: createJsonlStore({ dir }), id: 'spec' });
    for (const recorded of lines(EXAMPLE).slice(1) as SessionEvent[]) {
      const { type, body, turn, step, surfaceOp, sourceEventSeqs } = recorded;
      session.append(type, body, { turn, step, surfaceOp, sourceEventSeqs });
    }
    for (const [type, body] of Object.entries(SAMPLE_BODIES)) {
      if (type === 'session/header' || BUILTIN_EVENT_TYPES[type]?.surface === 'surface') continue;
      session.append(type, body);
    }
    await session.close();
    const written = lines(join(dir, 'spec.jsonl'));
    expect(written.length).toBeGreaterThan(70);
    for (const event of written) expect(problems(event), JSON.stringify(event)).toEqual([]);
  });

  it('refuses lines that break the format, naming where', () => {
    const at = '2026-12-01T00:00:00.000Z';
    const bad: Array<[unknown, RegExp]> = [
      [{ seq: 3, type: 'turn/end', at, body: { steps: 1 } }, /\/body.*reason/],
      [{ seq: 3, type: 'turn/end', at, body: { reason: 'completed', steps: -1 } }, /\/body\/steps/],
      [{ seq: 3, type: 'turn/end', at, body: { reason: 'done', steps: 1 } }, /\/body\/reason/],
      [{ seq: 0, type: 'turn/start', at, body: {} }, /\/seq/],
      [{ seq: 4, type: 'step/start', at, body: {}, surfaceOp: { op: 'append' } }, /\/surfaceOp/],
      [
        { seq: 5, type: 'user/message', at, body: { content: 1, source: 'user' } },
        /\/body\/content/,
      ],
      [{ seq: 6, type: 'x/y', at }, /body/],
    ];
    for (const [event, where] of bad) expect(problems(event).join('; ')).toMatch(where);
    // A custom type carries any JSON body.
    expect(problems({ seq: 7, type: 'my/thing', at, body: [1, { a: null }] })).toEqual([]);
  });

  it('gives the same verdict as the zod schema for every built-in body (property)', () => {
    const types = Object.keys(SAMPLE_BODIES);
    const mutated = fc
      .record({
        type: fc.constantFrom(...types),
        key: fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('reason', 'seqs', 'content')),
        pick: fc.nat(),
        value: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom(-1, 0, 1.5, 2 ** 60, '', 'ok', null, [], {}),
        ),
        mode: fc.constantFrom('set', 'delete', 'replace', 'keep'),
      })
      .map(({ type, key, pick, value, mode }) => {
        const sample = SAMPLE_BODIES[type] as Record<string, unknown>;
        const keys = Object.keys(sample);
        const field = keys.length > 0 && pick % 2 === 0 ? (keys[pick % keys.length] ?? key) : key;
        const body: Record<string, unknown> = structuredClone(sample);
        if (mode === 'set') body[field] = value;
        else if (mode === 'delete') delete body[field];
        else if (mode === 'replace') return { type, body: value as unknown };
        return { type, body: body as unknown };
      });
    fc.assert(
      fc.property(mutated, ({ type, body }) => {
        const zodVerdict = BUILTIN_EVENT_TYPES[type]?.body.safeParse(body).success;
        expect(bodyValidator(type)(body), `${type} ${JSON.stringify(body)}`).toBe(zodVerdict);
      }),
      { numRuns: 3000 },
    );
    for (const [type, body] of Object.entries(SAMPLE_BODIES)) {
      expect(BUILTIN_EVENT_TYPES[type]?.body.safeParse(body).success, type).toBe(true);
      expect(bodyValidator(type)(body), type).toBe(true);
    }
  });
});
