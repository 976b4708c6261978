// The MCP elicitation form on a terminal. The types are the parts of MCP's `elicitation/create`
// request and result this reads and writes, so `@spine/mcp`'s handler can pass its request as it is
// and return the answer, without this package depending on MCP.
import { visibleText } from '@spine/protocol';

/**
 * An MCP server's elicitation request: the server's name and the `elicitation/create` params
 * (`message` and a `requestedSchema` with `properties` and `required`). `@spine/mcp`'s
 * `McpElicitationHandler` receives one.
 */
export interface ElicitationRequest {
  /** The MCP server asking. */
  server: string;
  /** The request's params, as the server sent them. */
  params: object;
}

/** The person's answer to an elicitation, an MCP `ElicitResult`. */
export type ElicitationResult =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' };

type Field = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  items?: { enum?: unknown[] };
};

function fieldsOf(params: ElicitationRequest['params']): {
  properties: Record<string, Field>;
  required: string[];
} {
  const schema = (
    params as { requestedSchema?: { properties?: Record<string, Field>; required?: string[] } }
  ).requestedSchema;
  return { properties: schema?.properties ?? {}, required: schema?.required ?? [] };
}

/**
 * The question a server's elicitation puts to the person, made safe for the terminal: the server's
 * message, each requested field (type, required, choices, description), and how to answer.
 */
export function describeElicitation(request: ElicitationRequest): string {
  const message = (request.params as { message?: string }).message ?? '';
  const lines = [`MCP server ${visibleText(request.server)} asks: ${visibleText(message)}`];
  const { properties, required } = fieldsOf(request.params);
  for (const [name, field] of Object.entries(properties)) {
    const choices = field.enum ?? field.items?.enum;
    const details = [
      field.type ?? 'value',
      required.includes(name) ? 'required' : undefined,
      choices ? `one of ${choices.map(String).join(', ')}` : undefined,
    ].filter(Boolean);
    const about = field.description ?? field.title;
    lines.push(
      `  ${visibleText(name)} (${visibleText(details.join(', '))})${about ? `: ${visibleText(about)}` : ''}`,
    );
  }
  lines.push(
    Object.keys(properties).length > 0
      ? 'Answer with name=value … (quote values with spaces) to accept, or decline, or cancel:'
      : 'Answer accept, decline or cancel:',
  );
  return `${lines.join('\n')}\n`;
}

function words(line: string): string[] {
  const out: string[] = [];
  for (const match of line.matchAll(/(\w[\w.-]*)=("([^"]*)"|'([^']*)'|\S*)/g))
    out.push(`${match[1]}=${match[3] ?? match[4] ?? match[2] ?? ''}`);
  return out;
}

/**
 * The person's answer line as an elicitation result: `decline` or `cancel` as they are,
 * `accept` (or `name=value …`) as `accept` with the values converted to each field's type
 * (numbers, booleans, comma-separated arrays). The server checks the content against its schema.
 */
export function parseElicitationAnswer(
  line: string,
  request: ElicitationRequest,
): ElicitationResult {
  const trimmed = line.trim().toLowerCase();
  if (trimmed === 'decline' || trimmed === 'no' || trimmed === 'n') return { action: 'decline' };
  if (trimmed === 'cancel' || trimmed === '') return { action: 'cancel' };
  const { properties } = fieldsOf(request.params);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const word of words(line)) {
    const at = word.indexOf('=');
    const name = word.slice(0, at);
    const raw = word.slice(at + 1);
    const type = properties[name]?.type;
    if (type === 'number' || type === 'integer') {
      const value = Number(raw);
      content[name] = Number.isFinite(value) ? value : raw;
    } else if (type === 'boolean') content[name] = /^(true|yes|y|1)$/i.test(raw);
    else if (type === 'array') content[name] = raw.split(',').filter(Boolean);
    else content[name] = raw;
  }
  return { action: 'accept', content };
}
