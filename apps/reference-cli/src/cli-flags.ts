// The command-line flags every command shares, for commander. No configuration code: `main.ts`
// builds the command table from these, so `spine --help` loads neither the harness nor zod.
import type { Command } from 'commander';

/** Options every agent-running command accepts (the command-line contract). */
export interface AgentFlags {
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  cwd?: string;
  sessionDir?: string;
  sandbox?: string;
  approval?: string;
  maxSteps?: string;
  maxCost?: string;
  maxTokens?: string;
  profile?: string;
  json?: boolean;
  store?: string;
  imageFallback?: string;
  /** `spine run --image <file>` (repeatable). */
  image?: string[];
}

/** The configuration keys the flags set, each with its flag (named in errors). */
export const FLAG_NAMES: Record<string, string> = {
  model: '--model',
  baseUrl: '--base-url',
  apiKeyEnv: '--api-key-env',
  sessionDir: '--session-dir',
  sandbox: '--sandbox',
  approval: '--approval',
  maxSteps: '--max-steps',
  maxCost: '--max-cost',
  maxTokens: '--max-tokens',
  profile: '--profile',
  imageFallback: '--image-fallback',
};

/** Adds `--session-dir`, `--cwd` and `--profile` (every command that touches sessions). */
export function addStoreOptions(command: Command): Command {
  return command
    .option('--cwd <dir>', 'the workspace (default: current directory)')
    .option('--session-dir <dir>', 'where sessions are stored (also SPINE_SESSION_DIR)')
    .option('--profile <name>', 'configuration profile to apply')
    .option('--store <url>', 'a PostgreSQL store, postgres://user@host/db (also SPINE_STORE_URL)');
}

/** Adds the model, sandbox, approval and step flags of the command-line contract. */
export function addAgentOptions(command: Command): Command {
  return addStoreOptions(command)
    .option(
      '--model <provider/model>',
      'deepseek/<model>, openai-compatible/<model> or anthropic/<model>',
    )
    .option(
      '--base-url <url>',
      'endpoint; the URL /chat/completions (openai-compatible) or /v1/messages (anthropic) is appended to',
    )
    .option('--api-key-env <NAME>', 'variable holding the key')
    .option('--sandbox <mode>', 'read-only | workspace-write | danger-full-access')
    .option(
      '--approval <policy>',
      'ask | auto-edit | never-ask | deny-all | plan (read, search and fetch only)',
    )
    .option('--max-steps <n>', 'step limit per turn')
    .option(
      '--image-fallback <mode>',
      'images for a model that does not accept them: error (default) | placeholder (a line of text instead)',
    )
    .option(
      '--max-cost <USD>',
      'stop when the session (subagents included) has spent this (exit 8)',
    )
    .option(
      '--max-tokens <n>',
      'stop when the session (subagents included) has used this many tokens',
    )
    .option('--json', 'session events as NDJSON on stdout, one per line, as appended');
}
