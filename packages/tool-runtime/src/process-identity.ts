import { readFileSync } from 'node:fs';

/** A process as it can be recognised later: its pid and its start time (clock ticks since boot). */
export interface ProcessIdentity {
  /** Process id. */
  pid: number;
  /** Field 22 of `/proc/<pid>/stat`; a reused pid has another start time. */
  startTime: number;
}

/**
 * The start time of `pid` from `/proc/<pid>/stat` (field 22, clock ticks after boot), or
 * `undefined` when the process does not exist or `/proc` is not there (not Linux).
 */
export function processStartTime(pid: number): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': cut after the last.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const value = Number(fields[19]);
  if (fields[0] === 'Z') return undefined; // a zombie has exited; only its entry remains
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Whether the process `identity` names still runs: the pid exists and has the same start time,
 * so a pid the kernel reused for another process is never taken for it.
 */
export function isProcessRunning(identity: ProcessIdentity): boolean {
  return processStartTime(identity.pid) === identity.startTime;
}
