import { InvalidRuntimeOptionsError } from './errors.js';

/** How much of the host environment commands and hooks start from. */
export type ShellEnvInherit = 'core' | 'all' | 'none';

/** Options of {@link createShellEnv} (the CLI's `shell.env` configuration plus what it never passes). */
export interface ShellEnvOptions {
  /**
   * Starting set: `'core'` (default) the {@link CORE_ENV_VARIABLES}; `'all'` every variable except
   * credential-like names; `'none'` nothing.
   */
  inherit?: ShellEnvInherit;
  /** Variables to set to these values (after inheriting; beats `include`, loses to `neverPass`). */
  set?: Readonly<Record<string, string>>;
  /** More variables to copy from the host by name; `NAME_*` copies every name with that prefix. */
  include?: readonly string[];
  /** Variables to drop (names or `NAME_*` prefixes), whatever else says. */
  exclude?: readonly string[];
  /**
   * Names never passed, whatever the options above say: the model API key variable and every
   * provider key setting. Callers fill this in; users cannot switch it off.
   */
  neverPass?: readonly string[];
}

/** The variables every command gets from the host by default (`LC_*` is every locale variable). */
export const CORE_ENV_VARIABLES: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LANG',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
  'SHELL',
]);

// Variables that make a shell run code before the command (`BASH_ENV`, `ENV`, exported functions)
// or change how it parses; dropped even under `inherit: 'all'` and even when `set`.
const STARTUP = /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|BASH_FUNC_.*)$/;

// Credential-like names, dropped under `inherit: 'all'`: keys, tokens, secrets, passwords, personal
// access tokens, agent sockets, and connection strings that usually embed a password.
const CREDENTIAL =
  /(^|_)(KEY|KEYS|PAT|DSN|PASS|PWD_?HASH)(_|$)|API_?KEY|ACCESS_?KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION|(DATABASE|DB|REDIS|MONGO[A-Z]*|POSTGRES[A-Z]*|PG|MYSQL|AMQP|RABBITMQ)_?UR[IL]/i;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_OR_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** True when `name` looks like it holds a credential (the filter `inherit: 'all'` applies). */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL.test(name);
}

function matcher(patterns: readonly string[], what: string): (name: string) => boolean {
  for (const pattern of patterns) {
    if (!NAME_OR_PREFIX.test(pattern)) {
      throw new InvalidRuntimeOptionsError({
        reason: `shell.env.${what} entry ${JSON.stringify(pattern)} is not a variable name or NAME_* prefix`,
      });
    }
  }
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith('*')));
  const prefixes = patterns.filter((pattern) => pattern.endsWith('*')).map((p) => p.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

/**
 * Builds the environment of shell commands and hooks from the host's: the inherited set, plus
 * `include`, minus `exclude`, with `set` applied; then drops `neverPass` names and the variables
 * that make a shell read startup code (`BASH_ENV`, `ENV`, `BASH_FUNC_*`, `SHELLOPTS`, `BASHOPTS`).
 *
 * @throws an {@link InvalidRuntimeOptionsError} when an `include`/`exclude`/`set` name is not a
 *   variable name, a `set` value is not a string or contains NUL, or `inherit` is unknown.
 * @example
 * ```ts
 * const env = createShellEnv(process.env, { include: ['NODE_OPTIONS'], neverPass: ['MY_KEY'] });
 * createBashTool({ cwd, env });
 * ```
 */
export function createShellEnv(
  source: NodeJS.ProcessEnv,
  options: ShellEnvOptions = {},
): NodeJS.ProcessEnv {
  const inherit = options.inherit ?? 'core';
  if (inherit !== 'core' && inherit !== 'all' && inherit !== 'none') {
    throw new InvalidRuntimeOptionsError({
      reason: `shell.env.inherit must be "core", "all" or "none", got ${JSON.stringify(inherit)}`,
    });
  }
  const isCore = matcher(CORE_ENV_VARIABLES, 'core');
  const isIncluded = matcher(options.include ?? [], 'include');
  const isExcluded = matcher(options.exclude ?? [], 'exclude');
  const never = new Set(options.neverPass ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const inherited =
      inherit === 'all' ? !isCredentialName(name) : inherit === 'core' && isCore(name);
    if (inherited || isIncluded(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (!NAME.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw new InvalidRuntimeOptionsError({
        reason: `shell.env.set entry ${JSON.stringify(name)} needs a variable name and a string value without NUL`,
      });
    }
    env[name] = value;
  }
  for (const name of Object.keys(env)) {
    if (isExcluded(name) || never.has(name) || STARTUP.test(name)) delete env[name];
  }
  return env;
}

/** A copy of `env` without the variables that make a shell run startup code (see {@link createShellEnv}). */
export function withoutShellStartup(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!STARTUP.test(name)) kept[name] = value;
  return kept;
}
