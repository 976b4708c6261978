import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ConfigLayer,
  type LoadedConfig,
  loadConfig,
  UsageError,
  withoutPassword,
} from '@spine/harness';
import { type AgentFlags, FLAG_NAMES } from './cli-flags.js';

export type { AgentFlags } from './cli-flags.js';

/**
 * Loads the configuration for a command: the flags become the top layer.
 *
 * @throws an {@link InvalidConfigError} for a bad file, variable or flag.
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
      if (!/^[1-9]\d*$/.test(String(value))) {
        throw new UsageError({
          message: `--max-steps expects a positive integer, got "${String(value)}"`,
        });
      }
      layer[key] = Number(value);
    } else if (key === 'maxCost') {
      // 0 would stop nothing before the first request, which is sent and paid for.
      if (!/^\d+(\.\d+)?$/.test(String(value)) || Number(value) <= 0)
        throw new UsageError({
          message: `--max-cost expects a positive amount in USD such as 0.50, got "${String(value)}"`,
        });
      layer[key] = Number(value);
    } else if (key === 'maxTokens') {
      if (!/^[1-9]\d*$/.test(String(value)))
        throw new UsageError({
          message: `--max-tokens expects a positive integer, got "${String(value)}"`,
        });
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
