// Configured secret values (env and header values, values expanded from `${VAR}`) are replaced
// by `[redacted]` in everything a server prints before Spine shows or stores it.
import { isStdioServer, type McpServerConfig } from '../config.js';

/** What a secret value becomes. */
export const REDACTED = '[redacted]';
/** Shorter values are not treated as secrets (they would redact ordinary words). */
export const MIN_SECRET_LENGTH = 4;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Variables that locate things rather than authorise: `${HOME}/notes` in `args` must not turn
 * every path in every result into `[redacted]/…`. (Whole `env` and `headers` values are always
 * secrets, whatever they reference.)
 */
const LOCATION_VARIABLE =
  /^(HOME|USER|LOGNAME|PWD|OLDPWD|PATH|SHELL|TMPDIR|TEMP|TMP|LANG|TERM|HOSTNAME|LC_\w+|XDG_\w+)$/;

/** The values `${VAR}` references in `text` expand to (set variables only, locations left out). */
function referencedValues(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const name = match[1] as string;
    const value = env[name];
    if (value && !LOCATION_VARIABLE.test(name)) out.push(value);
  }
  return out;
}

/**
 * The secret values of one entry: every `env` and `headers` value (as configured and expanded)
 * and every value a `${VAR}` reference anywhere in the entry expands to (location variables such
 * as `HOME` and `PWD` excepted); at least 4 characters.
 */
export function secretValues(
  configured: McpServerConfig,
  expanded: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const values: string[] = [];
  const fields: string[] = [];
  if (isStdioServer(configured) && isStdioServer(expanded)) {
    values.push(...Object.values(expanded.env ?? {}));
    fields.push(configured.command, ...(configured.args ?? []), configured.cwd ?? '');
    fields.push(...Object.values(configured.env ?? {}));
  } else if (!isStdioServer(configured) && !isStdioServer(expanded)) {
    values.push(...Object.values(expanded.headers ?? {}));
    fields.push(configured.url, ...Object.values(configured.headers ?? {}));
    // An `Authorization: Bearer <token>` header: the token alone is a secret too.
    for (const header of Object.values(expanded.headers ?? {}))
      values.push(...header.split(/\s+/).slice(1));
  }
  for (const field of fields) values.push(...referencedValues(field, env));
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces configured secret values in text a server wrote. */
export class Redactor {
  /** The longest secret's length (0 without secrets). */
  readonly longest: number;
  private readonly pattern: RegExp | undefined;

  constructor(secrets: readonly string[]) {
    const sorted = [...new Set(secrets)]
      .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    this.longest = sorted[0]?.length ?? 0;
    this.pattern =
      sorted.length === 0 ? undefined : new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  }

  /** `text` with every secret value replaced by `[redacted]`. */
  redact(text: string): string {
    if (!this.pattern) return text;
    return text.replace(this.pattern, REDACTED);
  }

  /** Every match of a secret in `text`, left to right. */
  matches(text: string): { start: number; end: number }[] {
    if (!this.pattern) return [];
    return [...text.matchAll(this.pattern)].map((match) => ({
      start: match.index,
      end: match.index + match[0].length,
    }));
  }
}

/**
 * Redacts a stream written in chunks (a server's stderr): a secret split across chunks is still
 * replaced, because the last `longest - 1` characters wait for the next chunk.
 */
export class StreamRedactor {
  private pending = '';

  constructor(private readonly redactor: Redactor) {}

  /** Takes a chunk; returns the redacted text that can be shown now. */
  push(chunk: string): string {
    const text = this.pending + chunk;
    const hold = Math.max(0, this.redactor.longest - 1);
    let cut = Math.max(0, text.length - hold);
    let out = '';
    let from = 0;
    for (const match of this.redactor.matches(text)) {
      if (match.start >= cut) break;
      // A match that starts before the cut is complete (it is at most `longest` long): emit it.
      out += text.slice(from, match.start) + REDACTED;
      from = match.end;
      if (match.end > cut) cut = match.end;
    }
    out += text.slice(from, Math.max(from, cut));
    this.pending = text.slice(Math.max(from, cut));
    return out;
  }

  /** The text still held back, redacted (for a reader that needs everything now). */
  peek(): string {
    return this.redactor.redact(this.pending);
  }
}

/** `value` with every string in it (keys excepted) redacted; other values as they are. */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (redactor.longest === 0) return value;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redactor.redact(item);
    if (Array.isArray(item)) return item.map(walk);
    if (typeof item === 'object' && item !== null)
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, walk(entry)]));
    return item;
  };
  return walk(value) as T;
}
