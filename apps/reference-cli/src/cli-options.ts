import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ConfigLayer,
  type LoadedConfig,
  loadConfig,
  UsageError,
  withoutPassword,
} from '@spine/harness';
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
  profile?: string;
  json?: boolean;
  store?: string;
}

const FLAG_NAMES: Record<string, string> = {
  model: '--model',
  baseUrl: '--base-url',
  apiKeyEnv: '--api-key-env',
  sessionDir: '--session-dir',
  sandbox: '--sandbox',
  approval: '--approval',
  maxSteps: '--max-steps',
  profile: '--profile',
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
    .option('--approval <policy>', 'ask | auto-edit | never-ask | deny-all')
    .option('--max-steps <n>', 'step limit per turn')
    .option('--json', 'session events as NDJSON on stdout, one per line, as appended');
}

/**
 * Loads the configuration for a command: the flags become the top layer.
 *
 * @throws {InvalidConfigError} for a bad file, variable or flag.
 */
export function configForFlags(flags: AgentFlags): { loaded: LoadedConfig; cwd: string } {
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new UsageError({ message: `--cwd ${cwd} is not a directory; pass the workspace folder` });
  }
  const layer: Record<string, unknown> = {};
  for (const key of Object.keys(FLAG_NAMES)) {
    const value = (flags as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (key === 'maxSteps') {
      if (!/^\d+$/.test(String(value))) {
        throw new UsageError({
          message: `--max-steps expects a positive integer, got "${String(value)}"`,
        });
      }
      layer[key] = Number(value);
    } else if (key === 'sessionDir') {
      layer[key] = resolve(String(value));
    } else layer[key] = value;
  }
  // The password of a --store URL goes to PGPASSWORD, never into the configuration.
  if (flags.store !== undefined) layer.store = { url: withoutPassword(flags.store) };
  const loaded = loadConfig({ cwd, flags: layer as ConfigLayer, flagNames: FLAG_NAMES });
  return { loaded, cwd };
}
