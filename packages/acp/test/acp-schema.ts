// Every JSON-RPC message between the SDK's client and Spine's agent, validated with ajv against
// the SDK's published JSON Schema (schema/v1/schema.json): the whole message against the
// protocol's root schema, and its params or result against the type its method names.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const schemaPath = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json');
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: false });
// The schema's numeric formats (generated from Rust types), checked as their ranges.
const integer = (min: number, max: number) => ({
  type: 'number' as const,
  validate: (value: number) => Number.isInteger(value) && value >= min && value <= max,
});
ajv.addFormat('int32', integer(-0x8000_0000, 0x7fff_ffff));
ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:/i);
ajv.addFormat('uint16', integer(0, 0xffff));
ajv.addFormat('uint32', integer(0, 0xffff_ffff));
ajv.addFormat('uint64', integer(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat('int64', integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat('double', { type: 'number', validate: (value: number) => Number.isFinite(value) });
ajv.addSchema(schema, 'acp');
const root = ajv.compile({ $ref: 'acp#' });

/** Params type and result type of each method, by the schema's $defs names. */
const METHODS: Record<string, [params: string, result?: string]> = {
  initialize: ['InitializeRequest', 'InitializeResponse'],
  'session/new': ['NewSessionRequest', 'NewSessionResponse'],
  'session/load': ['LoadSessionRequest', 'LoadSessionResponse'],
  'session/list': ['ListSessionsRequest', 'ListSessionsResponse'],
  'session/resume': ['ResumeSessionRequest', 'ResumeSessionResponse'],
  'session/close': ['CloseSessionRequest', 'CloseSessionResponse'],
  'session/prompt': ['PromptRequest', 'PromptResponse'],
  'session/set_config_option': ['SetSessionConfigOptionRequest', 'SetSessionConfigOptionResponse'],
  'session/set_mode': ['SetSessionModeRequest', 'SetSessionModeResponse'],
  'session/cancel': ['CancelNotification'],
  '$/cancel_request': ['CancelRequestNotification'],
  'session/request_permission': ['RequestPermissionRequest', 'RequestPermissionResponse'],
  'session/update': ['SessionNotification'],
};

function check(name: string, value: unknown): string | undefined {
  const validate = ajv.getSchema(`acp#/$defs/${name}`);
  if (!validate) return `no schema ${name}`;
  return validate(value) ? undefined : `${name}: ${ajv.errorsText(validate.errors)}`;
}

/** Validates messages in one direction; methods it does not know are the test's hostile input. */
export class MessageValidator {
  readonly problems: string[] = [];
  readonly messages: { direction: string; message: Record<string, unknown> }[] = [];
  readonly #pending = new Map<string, string>();

  /** Checks `message` sent in `direction` (`client→agent` or `agent→client`). */
  check(direction: string, message: Record<string, unknown>, allowUnknown = false): void {
    this.messages.push({ direction, message });
    const report = (problem: string): void => {
      this.problems.push(`${direction} ${JSON.stringify(message).slice(0, 300)}: ${problem}`);
    };
    if (!root(message)) report(`root: ${ajv.errorsText(root.errors)}`);
    const method = message.method;
    const id = message.id;
    if (typeof method === 'string') {
      if (id !== undefined) this.#pending.set(`${direction}:${String(id)}`, method);
      const types = METHODS[method];
      if (!types) {
        if (!allowUnknown) report(`unknown method ${method}`);
        return;
      }
      const problem = check(types[0], message.params);
      if (problem && !allowUnknown) report(problem);
      return;
    }
    const back = direction === 'client→agent' ? 'agent→client' : 'client→agent';
    const asked = this.#pending.get(`${back}:${String(id)}`);
    this.#pending.delete(`${back}:${String(id)}`);
    if ('error' in message) {
      const error = message.error as { code?: unknown; message?: unknown };
      if (typeof error.code !== 'number' || typeof error.message !== 'string')
        report('malformed error');
      return;
    }
    const result = asked ? METHODS[asked]?.[1] : undefined;
    if (!result) {
      report(`response to unknown request ${String(id)}`);
      return;
    }
    const problem = check(result, message.result);
    if (problem) report(problem);
  }
}
