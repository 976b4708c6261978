import type { AgentSession } from '@spine/harness';
import { visibleText } from '@spine/protocol';
import type { JobInfo } from '@spine/tool-runtime';
import { formatBytes, type Style } from '@spine/tui';

/** One line per job for `/jobs`: id, state, output size, command (control characters made visible). */
export function jobLines(jobs: readonly JobInfo[], style: Style): string[] {
  if (jobs.length === 0) return ['no background jobs in this session'];
  return jobs.map((job) => {
    const state =
      job.state === 'running'
        ? style.green('running')
        : job.killed
          ? style.yellow(`killed (${job.killedBy ?? 'model'})`)
          : job.exitCode === 0
            ? 'exited 0'
            : style.red(`exited ${job.exitCode ?? job.signal}`);
    return `${job.id.padEnd(8)} ${state.padEnd(12)} ${formatBytes(job.outputBytes).padStart(9)}  ${visibleText(job.command).slice(0, 80)}`;
  });
}

/** The status-line part for running jobs (`2 jobs running`), or `undefined` when none run. */
export function jobsStatus(active: AgentSession): string | undefined {
  const running = active.jobs.manager.running().length;
  if (running === 0) return undefined;
  return `${running} job${running === 1 ? '' : 's'} running`;
}

/** `/jobs` and `/kill <id>`. */
export async function jobCommand(
  name: '/jobs' | '/kill',
  argument: string,
  active: AgentSession,
  context: { print: (line: string) => void; style: Style },
): Promise<void> {
  const { print, style } = context;
  const manager = active.jobs.manager;
  if (name === '/jobs') {
    for (const line of jobLines(manager.list(), style)) print(line);
    return;
  }
  if (!argument) {
    print(style.red('usage: /kill <job id> (see /jobs)'));
    return;
  }
  try {
    const job = await active.jobs.kill(argument);
    print(`stopped ${jobLines([job], style)[0]}`);
  } catch (error) {
    print(style.red((error as Error).message));
  }
}

/** The note printed when a turn ends while jobs run, or `undefined` when none run. */
export function jobsRunningNote(active: AgentSession, style: Style): string | undefined {
  const running = active.jobs.manager.running();
  if (running.length === 0) return undefined;
  return style.yellow(
    `${running.length} background job${running.length === 1 ? '' : 's'} still running (${running.map((job) => job.id).join(', ')}): /jobs lists them, /kill <id> stops one`,
  );
}

/**
 * The question asked before an exit would stop running jobs, or `undefined` when none run: the
 * answer `y` (or another Ctrl-C) exits and stops them; anything else keeps working.
 */
export function exitQuestion(active: AgentSession, style: Style): string | undefined {
  const running = active.jobs.manager.running();
  if (running.length === 0) return undefined;
  return style.yellow(
    `\n${running.length} background job${running.length === 1 ? '' : 's'} running (${running.map((job) => job.id).join(', ')}). Exit and stop ${running.length === 1 ? 'it' : 'them'}? y (or Ctrl-C) exits, Enter keeps working`,
  );
}
