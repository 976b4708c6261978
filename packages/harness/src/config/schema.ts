// The configuration's schema (what one layer may hold) and its effective type, each key
// documented. Over 400 lines because both halves describe the same keys: a new key is added in
// one file, next to its twin.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** A hook command: a shell command line, or an object with a per-hook timeout and tool matcher. */
export const HookCommandSchema = z.union([
  z.string().min(1),
  z.strictObject({
    /** The shell command line. */
    command: z.string().min(1),
    /** How long the command may run, in ms. */
    timeoutMs: z.number().int().positive().optional(),
    /** Only for tool hooks: a tool name, or `*` (default). */
    matcher: z.string().min(1).optional(),
  }),
]);
/** A hook command: a command line, or one with a timeout and a tool matcher. */
export type HookCommand = z.infer<typeof HookCommandSchema>;

/** The hook events a user can attach shell commands to. */
export const HOOK_EVENTS = [
  'session-start',
  'pre-tool-use',
  'post-tool-use',
  'pre-compact',
  'stop',
  'user-prompt-submit',
  'permission-request',
  'post-compact',
  'subagent-start',
  'subagent-stop',
  'session-end',
  'notification',
] as const;
/** One of {@link HOOK_EVENTS}. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

const hookList = z.array(HookCommandSchema).optional();

/** A model the built-in table does not know, or new figures for one it does (prices in USD per 1M tokens). */
export const ModelEntrySchema = z.strictObject({
  /** The provider (`deepseek`, `openai`, `openai-compatible`, `anthropic`). */
  provider: z.string().min(1),
  /** The model id the provider knows it by. */
  id: z.string().min(1),
  /** Context window, in tokens. */
  contextWindow: z.number().int().positive(),
  /** Output cap per request, in tokens. */
  maxOutputTokens: z.number().int().positive(),
  /** Whether the model accepts image input (default: no). */
  images: z.boolean().optional(),
  /** Prices in USD per 1M tokens. */
  price: z
    .strictObject({
      /** Input tokens that missed the cache. */
      input: z.number().nonnegative(),
      /** Input tokens read from the cache. */
      cachedInput: z.number().nonnegative(),
      /** Output tokens. */
      output: z.number().nonnegative(),
      /** Input tokens written to the cache (Anthropic). */
      cacheWrite: z.number().nonnegative().optional(),
    })
    .optional(),
});
/** A model table entry: a model the built-in table does not know, or new figures for one it does. */
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** The settable fields, every one optional: what one layer (file, profile, env, flags) may hold. */
const layerFields = {
  /** The model, `provider/model` (`deepseek/deepseek-v4-flash`). */
  model: z
    .string()
    .regex(/^[a-z][a-z0-9-]*\/.+$/, 'a "provider/model" string, e.g. "deepseek/deepseek-chat"')
    .optional(),
  /** The provider's base URL (an OpenAI-compatible server, a proxy). */
  baseUrl: z.url({ protocol: /^https?$/, message: 'an absolute http(s) URL' }).optional(),
  /** The NAME of the environment variable holding the key (never the key itself). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the NAME of an environment variable holding the key')
    .optional(),
  /** The context window to assume, in tokens (overrides the model table). */
  contextWindow: z.number().int().positive().optional(),
  /**
   * An image sent to a model that does not accept images: `error` (default, refused before any
   * request) or `placeholder` (a line of text in its place).
   */
  imageFallback: z.enum(['error', 'placeholder']).optional(),
  /** Models the built-in table does not know, or new figures for ones it does. */
  models: z.array(ModelEntrySchema).optional(),
  /** Reasoning (thinking) of models that offer it. */
  reasoning: z
    .strictObject({
      /** Whether the model reasons before answering. */
      enabled: z.boolean().optional(),
      /** How much it reasons. */
      effort: z.enum(['low', 'medium', 'high', 'max']).optional(),
    })
    .optional(),
  /** Where the JSONL session files are kept. */
  sessionDir: z.string().min(1).optional(),
  /** What commands may touch: `read-only`, `workspace-write` (default), `danger-full-access`. */
  sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional(),
  /** When a person is asked before a tool runs (`plan`: plan mode, nothing with effects runs). */
  approval: z.enum(['ask', 'auto-edit', 'never-ask', 'deny-all', 'plan']).optional(),
  /** Steps per turn before it stops. */
  maxSteps: z.number().int().positive().optional(),
  /** USD the session (with its subagents) may spend; checked before each model request. */
  maxCost: z.number().positive().optional(),
  /** Tokens (all usage buckets) the session (with its subagents) may use. */
  maxTokens: z.number().int().positive().optional(),
  /** USD one turn (with its subagents) may spend. */
  maxTurnCost: z.number().positive().optional(),
  /** Tokens one turn (with its subagents) may use. */
  maxTurnTokens: z.number().int().positive().optional(),
  /** When the JSONL store syncs to disk. */
  fsync: z.enum(['always', 'per-turn', 'never']).optional(),
  /** A PostgreSQL session store instead of JSONL files; the password belongs in PGPASSWORD. */
  store: z
    .strictObject({
      /** `postgres://user@host:5432/db`, without a password. */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
        .refine((url) => !/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url), {
          message: 'a store URL without a password (put it in PGPASSWORD or ~/.pgpass)',
        })
        .optional(),
    })
    .optional(),
  /** Compaction of the model's context. */
  compaction: z
    .strictObject({
      /** Whether it compacts by itself. */
      auto: z.boolean().optional(),
      /** The share of the context window that triggers it (0–1). */
      threshold: z.number().gt(0).lt(1).optional(),
      /** Whether checkpoints are prepared in the background. */
      background: z.boolean().optional(),
    })
    .optional(),
  /** The workspace tools. */
  tools: z
    .strictObject({
      /** Globs the file tools skip. */
      exclude: z.array(z.string()).optional(),
    })
    .optional(),
  /** The web tools. */
  web: z
    .strictObject({
      /** Whether `web_search` and `web_fetch` are offered. */
      enabled: z.boolean().optional(),
    })
    .optional(),
  /** Loop detection: thresholds, or `enabled: false` for none (see {@link SpineConfig.loops}). */
  loops: z
    .strictObject({
      /** Whether the model's loops are detected. */
      enabled: z.boolean().optional(),
      /** The same tool call this many times in a row. */
      repeatedCall: z.number().int().min(2).optional(),
      /** The same failing tool result this many times in a turn. */
      repeatedError: z.number().int().min(2).optional(),
      /** Two calls alternating for this many A/B cycles. */
      alternatingCycles: z.number().int().min(2).optional(),
      /** The same text this many times (within an answer, or across answers). */
      repeatedText: z.number().int().min(2).optional(),
      /** This many steps in a row without a tool result the turn had not seen. */
      noProgressSteps: z.number().int().min(1).optional(),
      /** Steps the loop may go on after the model was told, before the turn ends `stuck`. */
      stopAfter: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** The language-server tools. */
  lsp: z
    .strictObject({
      /** Whether they are offered. */
      enabled: z.boolean().optional(),
    })
    .optional(),
  /** The terminal the interactive session runs in. */
  terminal: z
    .strictObject({
      /** Whether the window title (OSC 2) and turn progress (OSC 9;4) are set. */
      title: z.boolean().optional(),
    })
    .optional(),
  /** Instruction files (`AGENTS.md`) in the system prompt. */
  instructions: z
    .strictObject({
      /** Whether they are read. */
      enabled: z.boolean().optional(),
      /** The user-level instruction file. */
      userFile: z.string().min(1).optional(),
    })
    .optional(),
  /** Shell commands and hooks. */
  shell: z
    .strictObject({
      /**
       * The environment of shell commands and hooks. The model API key variable and provider key
       * variables are never passed, whatever this says.
       */
      env: z
        .strictObject({
          /** The variables inherited: a core set (default), all, or none. */
          inherit: z.enum(['core', 'all', 'none']).optional(),
          /** Variables set to these values. */
          set: z.record(z.string().regex(ENV_NAME, 'a variable name'), z.string()).optional(),
          /** Variables (or `NAME_*` prefixes) passed on as well. */
          include: z
            .array(z.string().regex(ENV_PATTERN, 'a variable name or NAME_* prefix'))
            .optional(),
          /** Variables (or `NAME_*` prefixes) never passed on. */
          exclude: z
            .array(z.string().regex(ENV_PATTERN, 'a variable name or NAME_* prefix'))
            .optional(),
        })
        .optional(),
      /** Unix-domain sockets a sandboxed command may create: none (default) or all. */
      unixSockets: z.enum(['none', 'all']).optional(),
      /**
       * Show credential locations (`~/.ssh`, `~/.aws`, shell histories, …; see tool-runtime's
       * `DEFAULT_CREDENTIAL_PATHS`) to sandboxed commands and MCP servers. Default false (hidden).
       * Accepted only in the user configuration: a project file setting it is an error.
       */
      allowCredentials: z.boolean().optional(),
      /**
       * Network of sandboxed commands: off (default), or only these hosts through Spine's
       * filtering proxy. Full network is granted per command by a person, never here.
       */
      network: z
        .union([
          z.literal('off'),
          z.strictObject({
            /**
             * Host names or `*.domain` patterns, reachable on ports 80 and 443; `host:port` (or
             * `[v6]:port`) for another port.
             */
            domains: z.array(
              z
                .string()
                .regex(
                  /^((\*\.)?[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/,
                  'a host name, *.domain pattern or host:port',
                ),
            ),
          }),
        ])
        .optional(),
    })
    .optional(),
  /**
   * Workspace globs whose writes need a person (file tools) and that the shell sandbox binds
   * read-only; `false` turns the protection off.
   */
  protectedPaths: z.union([z.array(z.string().min(1)), z.literal(false)]).optional(),
  // No `userFile` here: a project's configuration must not redirect user memory (a file every
  // session reads into the prompt and `remember` appends to) to some other file of the person's.
  /** Cross-session memory. */
  memory: z
    .strictObject({
      /** Whether the memory section and the `remember` tool are on. */
      enabled: z.boolean().optional(),
    })
    .optional(),
  /**
   * Workspace checkpoints before steps that may change files (rewind, undo, verified recovery),
   * their per-file size cap, and whether aborting a turn mid-tool restores the step's checkpoint.
   */
  rewind: z
    .strictObject({
      /** Whether checkpoints are taken. */
      checkpoints: z.boolean().optional(),
      /** Files over this size are not kept, in bytes. */
      maxFileBytes: z.number().int().positive().optional(),
      /** Whether an aborted turn restores the step's checkpoint. */
      onAbort: z.enum(['ask', 'never', 'always']).optional(),
    })
    .optional(),
  /**
   * MCP servers by name, in the `.mcp.json` entry format plus Spine's keys; @spine/mcp checks each
   * entry when the servers are used. `.mcp.json` and `~/.claude.json` add layers below Spine's files.
   */
  mcp: z
    .strictObject({
      /** Server entries by name. */
      servers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    })
    .optional(),
  /** Shell commands run on hook events. */
  hooks: z
    .strictObject({
      /** When a session starts or resumes. */
      'session-start': hookList,
      /** Before a tool runs (may deny it). */
      'pre-tool-use': hookList,
      /** After a tool ran. */
      'post-tool-use': hookList,
      /** Before a compaction. */
      'pre-compact': hookList,
      /** When a session finishes. */
      stop: hookList,
      /** Before a prompt starts its turn (may block or rewrite it). */
      'user-prompt-submit': hookList,
      /** Before a person is asked to approve a tool call (may allow or deny; fails closed). */
      'permission-request': hookList,
      /** After a compaction replaced part of the history. */
      'post-compact': hookList,
      /** When a subagent starts. */
      'subagent-start': hookList,
      /** When a subagent ends. */
      'subagent-stop': hookList,
      /** When a session ends, after `stop`. */
      'session-end': hookList,
      /** When the agent waits for a person (an approval prompt). */
      notification: hookList,
    })
    .optional(),
};

/** A profile: a named set of overrides inside a config file. */
export const ProfileSchema = z.strictObject(layerFields);
/** A profile: a named set of overrides inside a config file (every key of a layer but the profiles). */
export type Profile = z.infer<typeof ProfileSchema>;

const configLayerSchema = z.strictObject({
  ...layerFields,
  /** Which profile to apply. */
  profile: z.string().min(1).optional(),
  /** Named sets of overrides, applied right above the file that defines them. */
  profiles: z.record(z.string(), ProfileSchema).optional(),
});
/** One configuration layer as written in a file (`config.json`), in the environment or by flags. */
export type ConfigLayer = z.infer<typeof configLayerSchema>;
/**
 * The schema of one configuration layer ({@link ConfigLayer}): `loadConfig` validates every file,
 * variable and flag with it; an editor or a settings UI can too.
 */
export const ConfigLayerSchema: z.ZodType<ConfigLayer> = configLayerSchema;

/** The shell commands attached to each hook event. */
export type HookCommands = { [K in HookEvent]: HookCommand[] };

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
  /** Images for a text-only model: refused (`error`, the default) or a text `placeholder`. */
  imageFallback?: 'error' | 'placeholder';
  /** Extra model table entries (context window, output cap, prices). */
  models: ModelEntry[];
  /** Reasoning (thinking) control sent with each request; unset leaves the model's default. */
  reasoning?: {
    /** Whether the model reasons before answering. */
    enabled?: boolean;
    /** How much it reasons. */
    effort?: 'low' | 'medium' | 'high' | 'max';
  };
  /** Where sessions are stored (`<dir>/<id>.jsonl`). */
  sessionDir: string;
  /** OS isolation of shell commands. */
  sandbox: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Approval policy (`plan`: plan mode). */
  approval: 'ask' | 'auto-edit' | 'never-ask' | 'deny-all' | 'plan';
  /** Step limit per turn. */
  maxSteps: number;
  /** USD limit of the session, subagents included (`--max-cost`); absent: none. */
  maxCost?: number;
  /** Token limit of the session, subagents included (`--max-tokens`); absent: none. */
  maxTokens?: number;
  /** USD limit of one turn, subagents included; absent: none. */
  maxTurnCost?: number;
  /** Token limit of one turn, subagents included; absent: none. */
  maxTurnTokens?: number;
  /** Durability of the JSONL store. */
  fsync: 'always' | 'per-turn' | 'never';
  /** A PostgreSQL store (`--store`, SPINE_STORE_URL); absent: JSONL files in `sessionDir`. */
  store?: {
    /** `postgres://user@host:5432/db`, without a password. */
    url?: string;
  };
  /** Automatic compaction, the pressure threshold (fraction of the window), background checkpoints. */
  compaction: {
    /** Whether it compacts by itself. */
    auto: boolean;
    /** The share of the context window that triggers it (0–1). */
    threshold: number;
    /** Whether checkpoints are prepared in the background. */
    background: boolean;
  };
  /** Glob patterns hidden from workspace tools and `@path` completion. */
  tools: {
    /** The globs. */
    exclude: string[];
  };
  /** Web tools on or off (they still need a configured provider). */
  web: {
    /** Whether `web_search` and `web_fetch` are offered. */
    enabled: boolean;
  };
  /**
   * Loop detection (on by default): the first loop of a turn is recorded (`loop/detected`) and the
   * model told; a loop that goes on `stopAfter` more steps ends the turn `stuck` (`spine run` exits 9).
   */
  loops: {
    /** Whether loops are detected. */
    enabled: boolean;
    /** The same tool call (name and canonical arguments) this many times in a row. */
    repeatedCall: number;
    /** The same failing tool result (tool and content) this many times in a turn. */
    repeatedError: number;
    /** Two different calls alternating (A B A B …) for this many cycles. */
    alternatingCycles: number;
    /** An 8-word phrase this many times in one answer, or the same answer this many times in a turn. */
    repeatedText: number;
    /** This many steps in a row whose tool results were all seen before in the turn. */
    noProgressSteps: number;
    /** Steps the loop may go on after the model was told, before the turn ends `stuck`. */
    stopAfter: number;
  };
  /** Language-server tools on or off. */
  lsp: {
    /** Whether they are offered. */
    enabled: boolean;
  };
  /** The terminal the interactive session runs in. */
  terminal: {
    /** Whether the window title (OSC 2) and turn progress (OSC 9;4) are set (`SPINE_TERMINAL_TITLE=0` turns them off too). */
    title: boolean;
  };
  /** Project instruction files (`AGENTS.md`) and the user-level file. */
  instructions: {
    /** Whether they are read. */
    enabled: boolean;
    /** The user-level instruction file. */
    userFile: string;
  };
  /**
   * Cross-session memory: project memory (`<workspace>/.spine/memory.md`) and the user memory file
   * enter the system prompt, and the `remember` tool appends facts to them. `userFile` is always
   * `<configHome>/memory.md` (no layer sets it; `spine rerun` points it at a scratch file).
   */
  memory: {
    /** Whether the memory section and the `remember` tool are on. */
    enabled: boolean;
    /** The user memory file. */
    userFile: string;
  };
  /** Workspace checkpoints (on by default), their per-file size cap, rollback when a turn is aborted. */
  rewind: {
    /** Whether checkpoints are taken. */
    checkpoints: boolean;
    /** Files over this size are not kept, in bytes. */
    maxFileBytes: number;
    /** Whether an aborted turn restores the step's checkpoint. */
    onAbort: 'ask' | 'never' | 'always';
  };
  /** MCP servers by name (see the "Using MCP servers" guide); merged field by field across layers. */
  mcp: {
    /** Server entries by name. */
    servers: Record<string, Record<string, unknown>>;
  };
  /** User hooks per event. */
  hooks: HookCommands;
  /**
   * Shell commands and hooks: their environment (`inherit` core | all | none, plus `set`,
   * `include`, `exclude`; key variables are never passed) and whether the sandbox lets them create
   * Unix-domain sockets.
   */
  shell: {
    /** The environment of shell commands and hooks. */
    env: {
      /** The variables inherited: a core set, all, or none. */
      inherit: 'core' | 'all' | 'none';
      /** Variables set to these values. */
      set: Record<string, string>;
      /** Variables (or `NAME_*` prefixes) passed on as well. */
      include: string[];
      /** Variables (or `NAME_*` prefixes) never passed on. */
      exclude: string[];
    };
    /** Unix-domain sockets a sandboxed command may create. */
    unixSockets: 'none' | 'all';
    /** Show credential locations to sandboxed commands (user configuration only). */
    allowCredentials: boolean;
    /** Network of sandboxed commands: off, or only these hosts through Spine's filtering proxy. */
    network:
      | 'off'
      | {
          /** Host names or `*.domain` patterns (ports 80 and 443), or `host:port`. */
          domains: string[];
        };
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
    loops: {
      enabled: true,
      repeatedCall: 3,
      repeatedError: 3,
      alternatingCycles: 3,
      repeatedText: 3,
      noProgressSteps: 3,
      stopAfter: 2,
    },
    lsp: { enabled: true },
    terminal: { title: true },
    instructions: { enabled: true, userFile: join(configHome(env), 'AGENTS.md') },
    memory: { enabled: true, userFile: join(configHome(env), 'memory.md') },
    rewind: { checkpoints: true, maxFileBytes: 16 * 1024 * 1024, onAbort: 'never' },
    mcp: { servers: {} },
    shell: {
      env: { inherit: 'core', set: {}, include: [], exclude: [] },
      unixSockets: 'none',
      allowCredentials: false,
      network: 'off',
    },
    hooks: {
      'session-start': [],
      'pre-tool-use': [],
      'post-tool-use': [],
      'pre-compact': [],
      stop: [],
      'user-prompt-submit': [],
      'permission-request': [],
      'post-compact': [],
      'subagent-start': [],
      'subagent-stop': [],
      'session-end': [],
      notification: [],
    },
  };
}
