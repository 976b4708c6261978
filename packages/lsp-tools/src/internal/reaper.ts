import type { ChildProcess } from 'node:child_process';

// Server processes still alive when this Node process exits are killed, so a crashed or
// forgetful host never leaves language servers behind.
const live = new Set<ChildProcess>();
let installed = false;

function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

/** Registers a child to be killed when the current process exits. */
export function killOnProcessExit(child: ChildProcess): void {
  if (!installed) {
    installed = true;
    process.once('exit', killAll);
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}
