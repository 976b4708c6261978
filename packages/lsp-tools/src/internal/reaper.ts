import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

// Server processes still alive when this Node process exits are killed, so a crashed or
// forgetful host never leaves language servers behind; each one's private temporary folder goes
// with it (when it exits, or with this process).
const live = new Map<ChildProcess, string | undefined>();
let installed = false;

function removeFolder(folder: string | undefined): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
}

function killAll(): void {
  for (const [child, folder] of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    removeFolder(folder);
  }
  live.clear();
}

/**
 * Registers a child to be killed when the current process exits, and `tempFolder` (if given) to
 * be removed when the child exits or this process does.
 */
export function killOnProcessExit(child: ChildProcess, tempFolder?: string): void {
  if (!installed) {
    installed = true;
    process.once('exit', killAll);
  }
  live.set(child, tempFolder);
  child.once('exit', () => {
    live.delete(child);
    removeFolder(tempFolder);
  });
}
