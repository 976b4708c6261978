// Runs the hostile corpus through the real bash tool under real bubblewrap and prints the results
// as JSON on the last line. Run in-process by hostile-commands.test.ts and, as an unprivileged
// user, through `setpriv` (argv[2]: JSON of { workspace, targets, env }).
import { createBashTool, createBwrapSandbox, createToolRuntime } from '../src/index.js';
import { HOSTILE_CASES, type HostileResult, type HostileTargets, judge } from './hostile-corpus.js';

/** Input of {@link runHostileCorpus}. */
export interface HostileRun {
  workspace: string;
  targets: HostileTargets;
  env: NodeJS.ProcessEnv;
}

/** Runs every case in workspace-write and read-only; returns one result per case and mode. */
export async function runHostileCorpus(input: HostileRun): Promise<HostileResult[]> {
  const backend = createBwrapSandbox({
    network: {
      // Stand-in DNS: listed names answer with internal addresses, which the proxy must refuse.
      lookup: async (host) => [host === 'metadata.test' ? '169.254.169.254' : '127.0.0.1'],
    },
  });
  const results: HostileResult[] = [];
  try {
    for (const mode of ['workspace-write', 'read-only'] as const) {
      const runtimeWith = (network: 'off' | { domains: string[] }) =>
        createToolRuntime({
          cwd: input.workspace,
          sandbox: mode,
          approval: 'never-ask',
          tools: [
            createBashTool({
              cwd: input.workspace,
              sandboxBackend: backend,
              env: input.env,
              network,
            }),
          ],
        });
      const offline = runtimeWith('off');
      const byDomain = runtimeWith({
        domains: ['listed.test', `listed.test:${input.targets.tcpPort}`, 'metadata.test'],
      });
      for (const testCase of HOSTILE_CASES) {
        if (testCase.writeModeOnly && mode !== 'workspace-write') continue;
        const runtime = testCase.domains ? byDomain : offline;
        const [result] = await runtime.run([
          {
            type: 'tool-call',
            id: `hostile-${results.length}`,
            name: 'bash',
            arguments: JSON.stringify({
              command: testCase.command(input.targets),
              timeoutMs: 30_000,
            }),
          },
        ]);
        results.push(judge(testCase, mode, result?.content ?? ''));
      }
    }
  } finally {
    backend.close?.();
  }
  return results;
}

if (process.argv[2] && import.meta.url === `file://${process.argv[1]}`) {
  const input = JSON.parse(process.argv[2]) as HostileRun;
  const results = await runHostileCorpus(input);
  console.log(JSON.stringify({ uid: process.getuid?.(), results }));
}
