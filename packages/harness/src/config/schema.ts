import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** A hook command: a shell command line, or an object with a per-hook timeout and tool matcher. */
export const HookCommandSchema = z.union([
  z.string().min(1),
  z.strictObject({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().optional(),
    /** Only for tool hooks: a tool name, or `*` (default). */
    matcher: z.string().min(1).optional(),
  }),
]);
/** A hook command; see {@link HookCommandSchema}. */
export type HookCommand = z.infer<typeof HookCommandSchema>;

/** The hook events a user can attach shell commands to. */
export const HOOK_EVENTS = [
  'session-start',
  'pre-tool-use',
  'post-tool-use',
  'pre-compact',
  'stop',
] as const;
/** One of {@link HOOK_EVENTS}. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

const hookList = z.array(HookCommandSchema).optional();

/** A model the built-in table does not know, or new figures for one it does (prices in USD per 1M tokens). */
export const ModelEntrySchema = z.strictObject({
  provider: z.string().min(1),
  id: z.string().min(1),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive(),
  price: z
    .strictObject({
      input: z.number().nonnegative(),
      cachedInput: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cacheWrite: z.number().nonnegative().optional(),
    })
    .optional(),
});
/** A model table entry; see {@link ModelEntrySchema}. */
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** The settable fields, every one optional: what one layer (file, profile, env, flags) may hold. */
const layerFields = {
  model: z
    .string()
    .regex(/^[a-z][a-z0-9-]*\/.+$/, 'a "provider/model" string, e.g. "deepseek/deepseek-chat"')
    .optional(),
  baseUrl: z.url({ message: 'an absolute http(s) URL' }).optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the NAME of an environment variable holding the key')
    .optional(),
  contextWindow: z.number().int().positive().optional(),
  models: z.array(ModelEntrySchema).optional(),
  reasoning: z
    .strictObject({
      enabled: z.boolean().optional(),
      effort: z.enum(['low', 'medium', 'high', 'max']).optional(),
    })
    .optional(),
  sessionDir: z.string().min(1).optional(),
  sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional(),
  approval: z.enum(['ask', 'auto-edit', 'never-ask', 'deny-all']).optional(),
  maxSteps: z.number().int().positive().optional(),
  fsync: z.enum(['always', 'per-turn', 'never']).optional(),
  // A PostgreSQL session store instead of JSONL files; the password belongs in PGPASSWORD.
  store: z
    .strictObject({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
        .refine((url) => !/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url), {
          message: 'a store URL without a password (put it in PGPASSWORD or ~/.pgpass)',
        })
        .optional(),
    })
    .optional(),
  compaction: z
    .strictObject({
      auto: z.boolean().optional(),
      threshold: z.number().gt(0).lt(1).optional(),
      background: z.boolean().optional(),
    })
    .optional(),
  tools: z.strictObject({ exclude: z.array(z.string()).optional() }).optional(),
  web: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  lsp: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  instructions: z
    .strictObject({ enabled: z.boolean().optional(), userFile: z.string().min(1).optional() })
    .optional(),
  shell: z
    .strictObject({
      // The environment of shell commands and hooks. The model API key variable and provider key
      // variables are never passed, whatever this says.
      env: z
        .strictObject({
          inherit: z.enum(['core', 'all', 'none']).optional(),
          set: z.record(z.string().regex(ENV_NAME, 'a variable name'), z.string()).optional(),
          include: z
            .array(z.string().regex(ENV_PATTERN, 'a variable name or NAME_* prefix'))
            .optional(),
          exclude: z
            .array(z.string().regex(ENV_PATTERN, 'a variable name or NAME_* prefix'))
            .optional(),
        })
        .optional(),
      // Unix-domain sockets a sandboxed command may create: none (default) or all.
      unixSockets: z.enum(['none', 'all']).optional(),
      // Network of sandboxed commands: off (default), or only these hosts through Spine's
      // filtering proxy. Full network is granted per command by a person, never here.
      network: z
        .union([
          z.literal('off'),
          z.strictObject({
            domains: z.array(
              z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, 'a host name or *.domain pattern'),
            ),
          }),
        ])
        .optional(),
    })
    .optional(),
  // Workspace globs whose writes need a person (file tools) and that the shell sandbox binds
  // read-only; `false` turns the protection off.
  protectedPaths: z.union([z.array(z.string().min(1)), z.literal(false)]).optional(),
  // No `userFile` here: a project's configuration must not redirect user memory (a file every
  // session reads into the prompt and `remember` appends to) to some other file of the person's.
  memory: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  // Workspace checkpoints before steps that may change files (rewind, undo, verified recovery),
  // their per-file size cap, and whether aborting a turn mid-tool restores the step's checkpoint.
  rewind: z
    .strictObject({
      checkpoints: z.boolean().optional(),
      maxFileBytes: z.number().int().positive().optional(),
      onAbort: z.enum(['ask', 'never', 'always']).optional(),
    })
    .optional(),
  // MCP servers by name, in the `.mcp.json` entry format plus Spine's keys; @spine/mcp checks each
  // entry when the servers are used. `.mcp.json` and `~/.claude.json` add layers below Spine's files.
  mcp: z
    .strictObject({ servers: z.record(z.string(), z.record(z.string(), z.unknown())).optional() })
    .optional(),
  hooks: z
    .strictObject({
      'session-start': hookList,
      'pre-tool-use': hookList,
      'post-tool-use': hookList,
      'pre-compact': hookList,
      stop: hookList,
    })
    .optional(),
};

/** A profile: a named set of overrides inside a config file. */
export const ProfileSchema = z.strictObject(layerFields);
/** A profile; see {@link ProfileSchema}. */
export type Profile = z.infer<typeof ProfileSchema>;

/** One configuration layer as written in a file (`config.json`), in the environment or by flags. */
export const ConfigLayerSchema = z.strictObject({
  ...layerFields,
  /** Which profile to apply. */
  profile: z.string().min(1).optional(),
  profiles: z.record(z.string(), ProfileSchema).optional(),
});
/** One configuration layer; see {@link ConfigLayerSchema}. */
export type ConfigLayer = z.infer<typeof ConfigLayerSchema>;

/** The effective configuration after all layers are merged. */
export interface SpineConfig {
  /** `provider/model`. */
  model: string;
  /** Endpoint override. */
  baseUrl?: string;
  /** Name of the variable holding the key; the provider's default when unset. */
  apiKeyEnv?: string;
  /** Context window override, in tokens. */
  contextWindow?: number;
  /** Extra model table entries (context window, output cap, prices). */
  models: ModelEntry[];
  /** Reasoning (thinking) control sent with each request; unset leaves the model's default. */
  reasoning?: { enabled?: boolean; effort?: 'low' | 'medium' | 'high' | 'max' };
  /** Where sessions are stored (`<dir>/<id>.jsonl`). */
  sessionDir: string;
  /** OS isolation of shell commands. */
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Approval policy. */
  approval: 'ask' | 'auto-edit' | 'never-ask' | 'deny-all';
  /** Step limit per turn. */
  maxSteps: number;
  /** Durability of the JSONL store. */
  fsync: 'always' | 'per-turn' | 'never';
  /** A PostgreSQL store (`--store`, SPINE_STORE_URL); absent: JSONL files in `sessionDir`. */
  store?: { url?: string };
  /** Automatic compaction, the pressure threshold (fraction of the window), background checkpoints. */
  compaction: { auto: boolean; threshold: number; background: boolean };
  /** Glob patterns hidden from workspace tools and `@path` completion. */
  tools: { exclude: string[] };
  /** Web tools on or off (they still need a configured provider). */
  web: { enabled: boolean };
  /** Language-server tools on or off. */
  lsp: { enabled: boolean };
  /** Project instruction files (AGENTS.md) and the user-level file. */
  instructions: { enabled: boolean; userFile: string };
  /**
   * Cross-session memory: project memory (`<workspace>/.spine/memory.md`) and the user memory file
   * enter the system prompt, and the `remember` tool appends facts to them. `userFile` is always
   * `<configHome>/memory.md` (no layer sets it; `spine rerun` points it at a scratch file).
   */
  memory: { enabled: boolean; userFile: string };
  /** Workspace checkpoints (on by default), their per-file size cap, rollback when a turn is aborted. */
  rewind: { checkpoints: boolean; maxFileBytes: number; onAbort: 'ask' | 'never' | 'always' };
  /** MCP servers by name (see the "Using MCP servers" guide); merged field by field across layers. */
  mcp: { servers: Record<string, Record<string, unknown>> };
  /** User hooks per event. */
  hooks: { [K in HookEvent]: HookCommand[] };
  /**
   * Shell commands and hooks: their environment (`inherit` core | all | none, plus `set`,
   * `include`, `exclude`; key variables are never passed) and whether the sandbox lets them create
   * Unix-domain sockets.
   */
  shell: {
    env: {
      inherit: 'core' | 'all' | 'none';
      set: Record<string, string>;
      include: string[];
      exclude: string[];
    };
    unixSockets: 'none' | 'all';
    network: 'off' | { domains: string[] };
  };
  /** Protected workspace globs (undefined: the built-in list), or `false` for none. */
  protectedPaths?: string[] | false;
  /** The profile applied, if any. */
  profile?: string;
}

/** Where the user-level files live: `$SPINE_CONFIG_HOME`, else `~/.config/spine`. */
export function configHome(env: NodeJS.ProcessEnv): string {
  return env.SPINE_CONFIG_HOME ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'spine');
}

/** The built-in defaults, the lowest layer. */
export function defaultConfig(env: NodeJS.ProcessEnv): SpineConfig {
  const dataHome = env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share');
  return {
    model: 'deepseek/deepseek-v4-flash',
    models: [],
    sessionDir: join(dataHome, 'spine', 'sessions'),
    sandbox: 'workspace-write',
    approval: 'ask',
    maxSteps: 50,
    fsync: 'per-turn',
    compaction: { auto: true, threshold: 0.8, background: false },
    tools: { exclude: ['node_modules/**', '.git/**', 'dist/**'] },
    web: { enabled: true },
    lsp: { enabled: true },
    instructions: { enabled: true, userFile: join(configHome(env), 'AGENTS.md') },
    memory: { enabled: true, userFile: join(configHome(env), 'memory.md') },
    rewind: { checkpoints: true, maxFileBytes: 16 * 1024 * 1024, onAbort: 'never' },
    mcp: { servers: {} },
    shell: {
      env: { inherit: 'core', set: {}, include: [], exclude: [] },
      unixSockets: 'none',
      network: 'off',
    },
    hooks: {
      'session-start': [],
      'pre-tool-use': [],
      'post-tool-use': [],
      'pre-compact': [],
      stop: [],
    },
  };
}
