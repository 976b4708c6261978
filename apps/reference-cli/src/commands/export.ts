import { writeFileSync } from 'node:fs';
import { renderSessionMarkdown } from '@spine/session-log';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { UsageError } from '../errors.js';
import { EXIT_CODES } from '../exit-codes.js';
import { readSessionEvents, storeFor } from '../store.js';

/** `spine export <id> --format md|json [-o file]`. */
export async function exportCommand(
  id: string,
  flags: AgentFlags & { format?: string; output?: string },
): Promise<number> {
  const format = flags.format ?? 'md';
  if (format !== 'md' && format !== 'json') {
    throw new UsageError({ message: `--format expects md or json, got "${format}"` });
  }
  const { config } = configForFlags(flags).loaded;
  const events = await readSessionEvents(storeFor(config), id, config.sessionDir);
  const text =
    format === 'md'
      ? renderSessionMarkdown(events)
      : `${JSON.stringify({ sessionId: id, events }, null, 2)}\n`;
  if (flags.output) writeFileSync(flags.output, text);
  else process.stdout.write(text);
  return EXIT_CODES.ok;
}
