import { formatMemoryReport, memoryReport } from '@spine/harness';
import { memoryFiles } from '@spine/memory';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** `spine memory [--json]`: the user and project memory files of the workspace and their facts. */
export async function memoryCommand(flags: AgentFlags): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  const { memory } = loaded.config;
  const report = memoryReport(memoryFiles(cwd, { userFile: memory.userFile }), memory.enabled);
  process.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : formatMemoryReport(report));
  return EXIT_CODES.ok;
}
