import { effectiveConfigJson, formatEffectiveConfig } from '@spine/harness';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** `spine config [--effective] [--json]`: prints the configuration, each value with its layer. */
export async function configCommand(flags: AgentFlags & { effective?: boolean }): Promise<number> {
  const { loaded } = configForFlags(flags);
  if (flags.json) process.stdout.write(`${JSON.stringify(effectiveConfigJson(loaded), null, 2)}\n`);
  else if (flags.effective) process.stdout.write(formatEffectiveConfig(loaded));
  else process.stdout.write(`${JSON.stringify(loaded.config, null, 2)}\n`);
  return EXIT_CODES.ok;
}
