import { readdirSync, readFileSync } from 'node:fs';
import { isProcessRunning, type ProcessIdentity, processStartTime } from './process-identity.js';

// Finding the processes of a tool call after the agent that ran it died. An unsandboxed `bash`
// command (danger-full-access, or a command granted full access) does not die with Spine: bubblewrap's
// `--die-with-parent` and PID namespace are what end a sandboxed one. So each unsandboxed command
// carries `SPINE_TOOL_CALL=<session id>/<call id>` in its environment, and a resume looks for it in
// `/proc/<pid>/environ`. Why an environment tag rather than a recorded pid or process group:
// - it is in the process from its first instruction: no log write has to reach the disk between
//   the spawn and a crash (a pid recorded after the spawn can be lost with the crash);
// - every descendant inherits it, including one that left the process group (`setsid`, `nohup … &`,
//   a daemonising server), which a process-group kill would miss;
// - it names the session and the call, so a reused pid or another session's command is never
//   taken for it (each process found is then tracked by pid and start time).
// It misses a process that clears its environment (`env -i`) or runs as another user; Linux only.

/** The environment variable that tags the processes of an unsandboxed `bash` call. */
export const TOOL_CALL_ENV = 'SPINE_TOOL_CALL';

/** The value of {@link TOOL_CALL_ENV} for call `callId` of session `sessionId`. */
export function toolCallTag(sessionId: string, callId: string): string {
  return `${sessionId}/${callId}`;
}

/** Whether the NUL-separated `environ` holds exactly the entry `entry` (`NAME=value`). */
function hasEntry(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    const end = at + entry.length;
    const starts = at === 0 || environ[at - 1] === 0;
    if (starts && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}

/**
 * The running processes tagged with `tag` ({@link toolCallTag}) that this user can see, each as
 * pid and start time; `undefined` when there is no `/proc` to look in (not Linux), so the caller
 * cannot know whether any still runs.
 */
export function findToolCallProcesses(tag: string): ProcessIdentity[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const entry = Buffer.from(`${TOOL_CALL_ENV}=${tag}`);
  const found: ProcessIdentity[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: Buffer;
    try {
      // Another user's processes are not readable (EACCES) and not ours to stop.
      environ = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue;
    }
    if (!hasEntry(environ, entry)) continue;
    const startTime = processStartTime(Number(name));
    if (startTime !== undefined) found.push({ pid: Number(name), startTime });
  }
  return found;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function signalAll(processes: readonly ProcessIdentity[], signal: NodeJS.Signals): void {
  for (const identity of processes) {
    // Checked just before: a pid the kernel gave to another process is never signalled.
    if (!isProcessRunning(identity)) continue;
    try {
      process.kill(identity.pid, signal);
    } catch {
      // gone meanwhile, or not ours
    }
  }
}

async function waitGone(processes: readonly ProcessIdentity[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (processes.some(isProcessRunning) && Date.now() < deadline) await pause(25);
}

/** What {@link stopToolCallProcesses} found and did. */
export interface StopToolCallProcessesResult {
  /** The pids it found running and stopped. */
  stopped: number[];
  /** The pids still running after SIGKILL (another user's, or stuck in the kernel). */
  running: number[];
  /** False when there was no `/proc` to look in: whether any still runs is not known. */
  checked: boolean;
}

/**
 * Stops the processes tagged with `tag` ({@link toolCallTag}): SIGTERM, then SIGKILL to those left
 * after `graceMs` (default 2,000 ms), and waits until they are gone. Looks again after each round
 * (a shell may have started its next command meanwhile), at most five rounds.
 *
 * @example
 * ```ts
 * const { stopped, running } = await stopToolCallProcesses(toolCallTag(session.id, callId));
 * ```
 */
export async function stopToolCallProcesses(
  tag: string,
  options: { graceMs?: number } = {},
): Promise<StopToolCallProcessesResult> {
  const stopped = new Set<number>();
  let found = findToolCallProcesses(tag);
  if (found === undefined) return { stopped: [], running: [], checked: false };
  for (let round = 0; round < 5 && found.length > 0; round++) {
    for (const identity of found) stopped.add(identity.pid);
    signalAll(found, 'SIGTERM');
    await waitGone(found, options.graceMs ?? 2000);
    signalAll(found, 'SIGKILL');
    await waitGone(found, 2000);
    found = findToolCallProcesses(tag) ?? [];
  }
  const running = found.map((identity) => identity.pid);
  return {
    stopped: [...stopped].filter((pid) => !running.includes(pid)).sort((a, b) => a - b),
    running,
    checked: true,
  };
}
