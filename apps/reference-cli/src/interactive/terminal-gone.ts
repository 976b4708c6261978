import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';

/** Which of stdin, stdout and stderr (fds 0–2) are terminals now. */
export function terminalDescriptors(): boolean[] {
  return [0, 1, 2].map((fd) => isatty(fd));
}

/**
 * Points each of fds 0–2 that was a terminal (`wereTerminals`) and no longer is one (the terminal
 * hung up: `isatty` fails with EIO) at /dev/null. Call it last, on the way out: Node resets the
 * terminal modes of its stdio at exit and aborts on a native assertion when that fails with EIO
 * (nodejs/node#51519, fixed after Node 20); it skips a descriptor that names another file.
 * Closing then opening gives the same number back, as the lowest free descriptor.
 */
export function releaseDeadTerminal(wereTerminals: readonly boolean[]): void {
  for (const fd of [0, 1, 2]) {
    if (!wereTerminals[fd] || isatty(fd)) continue;
    try {
      closeSync(fd);
      openSync('/dev/null', fd === 0 ? 'r' : 'w');
    } catch {
      // Nothing left to protect: the exit goes on.
    }
  }
}
