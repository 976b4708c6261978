import type { AgentFlags } from '../cli-options.js';

/** `spine` with no subcommand: the interactive session. */
export async function interactiveCommand(flags: AgentFlags): Promise<number> {
  const { runInteractive } = await import('../interactive/repl.js');
  return runInteractive(flags);
}
