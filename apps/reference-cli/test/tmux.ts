import { execFileSync } from 'node:child_process';

/** A real terminal: one tmux server on a private socket running one command. */
export class TmuxTerminal {
  readonly #socket: string;

  constructor(command: string, options: { cwd: string; width?: number; height?: number }) {
    this.#socket = `spine-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.#tmux([
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(options.width ?? 160),
      '-y',
      String(options.height ?? 50),
      '-c',
      options.cwd,
      command,
    ]);
  }

  #tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' });
  }

  /** Types text (literally), then optionally presses Enter. */
  type(text: string, enter = true): void {
    this.#tmux(['send-keys', '-t', 'main', '-l', text]);
    if (enter) this.#tmux(['send-keys', '-t', 'main', 'Enter']);
  }

  /** Pastes `text` as a terminal would: bracketed (when the program asked for it), breaks kept. */
  paste(text: string): void {
    execFileSync('tmux', ['-L', this.#socket, 'load-buffer', '-b', 'paste', '-'], { input: text });
    this.#tmux(['paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'main']);
  }

  /** Presses keys by tmux name (`C-c`, `Tab`, `C-u`). */
  press(...keys: string[]): void {
    this.#tmux(['send-keys', '-t', 'main', ...keys]);
  }

  /** Resizes the window (and its one pane) to `width` × `height`: the program gets SIGWINCH. */
  resize(width: number, height: number): void {
    this.#tmux(['resize-window', '-t', 'main', '-x', String(width), '-y', String(height)]);
  }

  /** The screen and scrollback as text, without the blank rows below the cursor. */
  screen(): string {
    return this.#tmux(['capture-pane', '-p', '-J', '-t', 'main', '-S', '-500']).trimEnd();
  }

  /** The screen and scrollback as the terminal's rows (a wrapped line is several rows). */
  rawScreen(): string {
    return this.#tmux(['capture-pane', '-p', '-t', 'main', '-S', '-500']).trimEnd();
  }

  /** Waits until the screen matches `pattern` (after `from` characters, to skip earlier output). */
  async waitFor(
    pattern: RegExp,
    options: { timeoutMs?: number; from?: number } = {},
  ): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 45_000);
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen.slice(options.from ?? 0))) return screen;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The pane's title (`#{pane_title}`: what the program set with OSC 2, else the host name). */
  paneTitle(): string {
    return this.#tmux(['display-message', '-p', '-t', 'main', '#{pane_title}']).trimEnd();
  }

  /** From now on, appends every byte the program writes (escape sequences included) to `file`. */
  record(file: string): void {
    this.#tmux(['pipe-pane', '-t', 'main', '-o', `cat >> '${file}'`]);
  }

  /** Kills the tmux server and everything in it. */
  close(): void {
    try {
      this.#tmux(['kill-server']);
    } catch {
      // Already gone.
    }
  }
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The shell command that runs `spine <args>` with exactly `env` (nothing inherited), prints
 * `EXITED:<code>` when it ends and keeps the pane open so the screen can still be read.
 */
export function spineCommand(bin: string, env: NodeJS.ProcessEnv, args: string[]): string {
  const variables = Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value ?? '')}`);
  return [
    'env -i',
    ...variables,
    'TERM=xterm-256color',
    shellQuote(process.execPath),
    shellQuote(bin),
    ...args.map(shellQuote),
    '; echo EXITED:$?; sleep 60',
  ].join(' ');
}
