// Closed stdout/stderr handling. Its own module: `main.ts` installs it at start without loading
// report-error.ts (which loads the harness to explain a missing optional part).

/**
 * Makes writes to a closed stdout or stderr harmless: `EPIPE` (a reader such as `head -1`
 * went away), `EIO` (the terminal hung up) and writes after the stream was destroyed are
 * dropped instead of ending the process with an uncaught error. The session log is the
 * record, so the task goes on. Idempotent.
 */
export function tolerateClosedOutput(): void {
  if (tolerating) return;
  tolerating = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => {
      closedStreams.add(stream);
    });
  }
}

let tolerating = false;
const closedStreams = new Set<NodeJS.WriteStream>();

/** True once `stream` failed (closed pipe, hung-up terminal) or was destroyed. */
export function isClosed(stream: NodeJS.WriteStream): boolean {
  return closedStreams.has(stream) || stream.destroyed || !stream.writable;
}
