import { type ChildProcess, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  file: string;
  args: readonly string[];
  /** Starts the process instead of spawning `file`/`args` (a backend that reuses pre-started sandboxes). */
  start?: () => ChildProcess;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Output kept: the first and last half of this many characters. */
  maxOutputChars: number;
  onOutput?: (chunk: string) => void;
}

/** What a finished process left behind. */
export interface RunProcessResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  originalLength: number;
  pid?: number;
}

/** Keeps the head and the tail of a stream of text within a budget. */
class CappedText {
  private head = '';
  private tail = '';
  length = 0;
  constructor(private readonly max: number) {}
  push(text: string): void {
    this.length += text.length;
    const half = Math.floor(this.max / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text) this.tail = (this.tail + text).slice(-half);
  }
  get truncated(): boolean {
    return this.length > this.head.length + this.tail.length;
  }
  toString(): string {
    if (!this.truncated) return this.head + this.tail;
    const dropped = this.length - this.head.length - this.tail.length;
    return `${this.head}\n[… ${dropped} characters of output omitted …]\n${this.tail}`;
  }
}

/**
 * Spawns a process in its own process group and captures stdout and stderr (interleaved) within
 * a budget. On timeout or abort the whole group is killed with SIGKILL. Resolves once the main
 * process has exited and its pipes are drained (or after a short grace when a detached grandchild
 * keeps them open).
 */
export function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  return new Promise((resolve) => {
    const text = new CappedText(options.maxOutputChars);
    let timedOut = false;
    let aborted = false;
    const child =
      options.start?.() ??
      spawn(options.file, [...options.args], {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            killGroup();
          }, options.timeoutMs)
        : undefined;
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        const piece = decoder.write(chunk);
        if (!piece) return;
        text.push(piece);
        options.onOutput?.(piece);
      });
    }
    let settled = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const result: RunProcessResult = {
        output: text.toString(),
        exitCode,
        signal,
        timedOut,
        aborted,
        truncated: text.truncated,
        originalLength: text.length,
      };
      if (child.pid !== undefined) result.pid = child.pid;
      resolve(result);
    };
    onEnded(child, finish, (error) =>
      text.push(`failed to start ${options.file}: ${error.message}`),
    );
  });
}

/**
 * Calls `finish` once `child` has ended: after its exit and the draining of its pipes (or after a
 * short grace when a detached grandchild keeps them open), or with 127 when it could not start
 * (`failed` hears why first).
 */
export function onEnded(
  child: ChildProcess,
  finish: (code: number | null, signal: NodeJS.Signals | null) => void,
  failed: (error: Error) => void,
): void {
  child.on('error', (error) => {
    failed(error);
    finish(127, null);
  });
  child.on('exit', (code, signal) => {
    // A detached grandchild may hold the pipes open: drain briefly, then stop listening.
    const grace = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(code, signal);
    }, 150);
    child.on('close', () => {
      clearTimeout(grace);
      finish(code, signal);
    });
  });
}
