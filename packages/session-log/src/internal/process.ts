import { readFileSync } from './fs.js';

/**
 * The start time of a process (field 22 of /proc/<pid>/stat, in clock ticks since boot), which
 * tells a live lock holder from an unrelated process that reused its pid. Undefined off Linux.
 */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** True when `pid` runs and, if `startTime` is given, is still the process that started then. */
export function isAlive(pid: number, startTime?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (startTime === undefined) return true;
  const current = startTimeOf(pid);
  return current === undefined || current === startTime;
}
