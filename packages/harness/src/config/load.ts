import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { z } from 'zod';
import { InvalidConfigError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import {
  claudeUserFile,
  type McpServersFile,
  projectMcpFile,
  readMcpServersFile,
} from '../mcp/config-files.js';
import { refuseProjectWidening } from './project-limits.js';
import {
  type ConfigLayer,
  ConfigLayerSchema,
  configHome,
  defaultConfig,
  type SpineConfig,
} from './schema.js';

/** The layers, lowest first. */
export type ConfigLayerName = 'default' | 'user' | 'project' | 'env' | 'flag';

/** Where one effective value came from. */
export interface ConfigSource {
  /** The layer. */
  layer: ConfigLayerName;
  /** The file, variable or flag that set it (and the profile, when one applied). */
  origin: string;
}

/** The merged configuration with the source of every leaf value. */
export interface LoadedConfig {
  /** The effective configuration. */
  config: SpineConfig;
  /** Dotted key → where its value came from. */
  provenance: Map<string, ConfigSource>;
  /** The config files consulted (whether or not they exist). */
  files: {
    /** `<configHome>/config.json`. */
    user: string;
    /** `<cwd>/.spine/config.json`. */
    project: string;
  };
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The workspace (holds `.spine/config.json`). */
  cwd: string;
  /** Environment variables (defaults to `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags, keyed like the config (`maxSteps`, not `--max-steps`). */
  flags?: ConfigLayer;
  /** Flag spelling per key, for messages (`maxSteps` → `--max-steps`). */
  flagNames?: Record<string, string>;
}

/** What one environment variable of the `env` layer sets. */
export interface EnvVariable {
  /** The dotted configuration key. */
  key: string;
  /** How the variable's text is read. */
  type: 'string' | 'number' | 'boolean';
}

/** Environment variables read by the `env` layer, and the key each sets. */
export const ENV_VARIABLES: Readonly<Record<string, EnvVariable>> = {
  SPINE_MODEL: { key: 'model', type: 'string' },
  SPINE_BASE_URL: { key: 'baseUrl', type: 'string' },
  SPINE_API_KEY_ENV: { key: 'apiKeyEnv', type: 'string' },
  SPINE_SESSION_DIR: { key: 'sessionDir', type: 'string' },
  SPINE_SANDBOX: { key: 'sandbox', type: 'string' },
  SPINE_APPROVAL: { key: 'approval', type: 'string' },
  SPINE_MAX_STEPS: { key: 'maxSteps', type: 'number' },
  SPINE_FSYNC: { key: 'fsync', type: 'string' },
  SPINE_PROFILE: { key: 'profile', type: 'string' },
  SPINE_COMPACTION_AUTO: { key: 'compaction.auto', type: 'boolean' },
  SPINE_MEMORY: { key: 'memory.enabled', type: 'boolean' },
};

interface Layer {
  layer: ConfigLayerName;
  data: ConfigLayer;
  /** Origin per dotted key, or one origin for all. */
  origin: (key: string) => string;
  /** Base for relative paths. */
  base: string;
}

/**
 * Loads defaults < user file < project file < environment < flags, merged field by field, with
 * the selected profile applied right above the file that defines it.
 *
 * @throws an {@link InvalidConfigError} naming the file (or variable, or flag), the key and the
 *   expected shape.
 * @example
 * ```ts
 * const { config, provenance } = loadConfig({ cwd: process.cwd(), flags: { maxSteps: 5 } });
 * ```
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const userFile = join(configHome(env), 'config.json');
  const projectFile = join(options.cwd, '.spine', 'config.json');
  const user = readLayerFile(userFile, 'user', configHome(env));
  const project = readLayerFile(projectFile, 'project', options.cwd);
  if (project) refuseProjectWidening(project, userFile);
  // MCP servers from files other tools share, each just below Spine's file of the same level.
  const claude = mcpLayer(readMcpServersFile(claudeUserFile(env)), 'user', configHome(env));
  const mcpJson = mcpLayer(readMcpServersFile(projectMcpFile(options.cwd)), 'project', options.cwd);
  const envLayer = readEnvLayer(env);
  const flagNames = options.flagNames ?? {};
  const flagLayer = validated(
    options.flags ?? {},
    (key) => flagNames[key] ?? `--${key}`,
    'flag',
    process.cwd(),
  );

  const profile =
    flagLayer.data.profile ?? envLayer.data.profile ?? project?.data.profile ?? user?.data.profile;
  const layers: Layer[] = [];
  for (const file of [claude, user, mcpJson, project]) {
    if (!file) continue;
    layers.push(file);
    const overrides = profile === undefined ? undefined : file.data.profiles?.[profile];
    if (overrides) {
      const path = file.origin('');
      layers.push({ ...file, data: overrides, origin: () => `${path} (profile "${profile}")` });
    }
  }
  if (
    profile !== undefined &&
    !user?.data.profiles?.[profile] &&
    !project?.data.profiles?.[profile]
  ) {
    const known = [
      ...Object.keys(user?.data.profiles ?? {}),
      ...Object.keys(project?.data.profiles ?? {}),
    ];
    throw new InvalidConfigError({
      source: profileOrigin(profile, flagLayer, envLayer, project, user),
      key: 'profile',
      expected: `the name of a profile defined under "profiles" (${known.length ? `one of: ${known.join(', ')}` : 'none defined'}), got "${profile}"`,
    });
  }
  layers.push(envLayer, flagLayer);

  const config = defaultConfig(env) as unknown as Record<string, unknown>;
  const provenance = new Map<string, ConfigSource>();
  forEachLeaf(config, '', (key) => provenance.set(key, { layer: 'default', origin: 'built-in' }));
  for (const layer of layers) mergeLayer(config, layer.data, '', layer, provenance);
  return {
    config: config as unknown as SpineConfig,
    provenance,
    files: { user: userFile, project: projectFile },
  };
}

function profileOrigin(profile: string, ...layers: (Layer | undefined)[]): string {
  for (const layer of layers) if (layer?.data.profile === profile) return layer.origin('profile');
  return 'configuration';
}

function readLayerFile(path: string, layer: ConfigLayerName, base: string): Layer | undefined {
  const data = readJsonFile(path);
  if (data === undefined) return undefined;
  return validated(data, () => path, layer, base);
}

function mcpLayer(
  file: McpServersFile | undefined,
  layer: ConfigLayerName,
  base: string,
): Layer | undefined {
  return file && validated({ mcp: { servers: file.servers } }, () => file.path, layer, base);
}

function readEnvLayer(env: NodeJS.ProcessEnv): Layer {
  const data: Record<string, unknown> = {};
  const origins: Record<string, string> = {};
  for (const [name, { key, type }] of Object.entries(ENV_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    let value: unknown = raw;
    if (type === 'number') value = /^\d+$/.test(raw) ? Number(raw) : raw;
    if (type === 'boolean')
      value = raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
    setPath(data, key, value);
    origins[key] = `environment variable ${name}`;
  }
  return validated(data, (key) => origins[key] ?? 'environment', 'env', process.cwd());
}

function validated(
  data: unknown,
  origin: (key: string) => string,
  layer: ConfigLayerName,
  base: string,
): Layer {
  const parsed = ConfigLayerSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.map(String).join('.');
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const fullKey = unknownKeys.length ? [key, unknownKeys[0]].filter(Boolean).join('.') : key;
    throw new InvalidConfigError({
      source: origin(fullKey),
      key: fullKey,
      expected: describeIssue(issue, unknownKeys),
    });
  }
  return { layer, data: parsed.data, origin, base };
}

function describeIssue(issue: z.core.$ZodIssue, unknownKeys: string[]): string {
  if (unknownKeys.some((key) => /^api_?key$/i.test(key))) {
    return 'API keys are never stored in configuration; set "apiKeyEnv" to the NAME of an environment variable that holds the key';
  }
  if (unknownKeys.length)
    return `is not a known key (${issue.message}); check the spelling against \`spine config --effective\``;
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    const bound = describeBound(issue);
    if (bound !== undefined) return `expected ${bound}`;
  }
  // zod says "Invalid option: expected one of …" or "Invalid input: expected string, …".
  const detail = issue.message.replace(/^Invalid (?:input|option|type|value): /, '');
  return detail.startsWith('expected') ? detail : `expected ${detail}`;
}

/**
 * A bound zod words as "Too big: expected int to be <=9007199254740991", as words: "a whole
 * number no larger than 9007199254740991". A schema's own message is kept (undefined here).
 */
function describeBound(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
): string | undefined {
  if (!/^Too (?:small|big): /.test(issue.message)) return undefined;
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  const { inclusive = false, origin } = issue;
  if (origin === 'number' || origin === 'int' || origin === 'bigint') {
    const noun = origin === 'number' ? 'a number' : 'a whole number';
    if (small) return inclusive ? `${noun} of at least ${limit}` : `${noun} greater than ${limit}`;
    return inclusive ? `${noun} no larger than ${limit}` : `${noun} less than ${limit}`;
  }
  const unit =
    origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'item' : '';
  if (unit === '') return undefined;
  const what = origin === 'string' ? 'a text' : 'a list';
  if (small && limit === 1 && inclusive) return `${what} that is not empty`;
  const count = inclusive ? limit : small ? limit + 1 : limit - 1;
  return `${what} of ${small ? 'at least' : 'at most'} ${count} ${unit}${count === 1 ? '' : 's'}`;
}

function mergeLayer(
  target: Record<string, unknown>,
  data: Record<string, unknown>,
  prefix: string,
  layer: Layer,
  provenance: Map<string, ConfigSource>,
): void {
  for (const [name, value] of Object.entries(data)) {
    if (value === undefined || (prefix === '' && name === 'profiles')) continue;
    const key = prefix ? `${prefix}.${name}` : name;
    const current = target[name];
    if (isPlainObject(value) && (isPlainObject(current) || current === undefined)) {
      const next = (current ?? {}) as Record<string, unknown>;
      target[name] = next;
      mergeLayer(next, value, key, layer, provenance);
      continue;
    }
    target[name] =
      isPathKey(key) && typeof value === 'string' ? resolvePath(value, layer.base) : value;
    provenance.set(key, { layer: layer.layer, origin: layer.origin(key) });
  }
}

function isPathKey(key: string): boolean {
  return key === 'sessionDir' || key === 'instructions.userFile';
}

function resolvePath(path: string, base: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

/** Calls `visit` with the dotted key and value of every leaf (arrays are leaves). */
export function forEachLeaf(
  value: unknown,
  prefix: string,
  visit: (key: string, value: unknown) => void,
): void {
  if (!isPlainObject(value)) {
    visit(prefix, value);
    return;
  }
  for (const [name, child] of Object.entries(value))
    forEachLeaf(child, prefix ? `${prefix}.${name}` : name, visit);
}
