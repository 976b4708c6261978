import { basename } from 'node:path';
import { sanitizeTitle } from '@spine/harness';

/** The longest window title written, in graphemes. */
export const WINDOW_TITLE_MAX = 80;

const OSC = '\u001b]';
const BEL = '\u0007';
/** XTWINOPS: push the window title on the terminal's title stack / pop it back. */
const PUSH_TITLE = '\u001b[22;2t';
const POP_TITLE = '\u001b[23;2t';

/** What {@link TerminalTitle} writes to (a TTY stream). */
export interface TitleOutput {
  /** Writes escape sequences as they are. */
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Whether the window title and progress may be written: only to a TTY, unless
 * `SPINE_TERMINAL_TITLE=0` (or `false`, `off`, `no`) or the config key `terminal.title: false`.
 */
export function terminalTitleEnabled(
  out: TitleOutput,
  env: NodeJS.ProcessEnv = process.env,
  configured = true,
): boolean {
  const setting = env.SPINE_TERMINAL_TITLE?.trim().toLowerCase();
  if (setting !== undefined && ['0', 'false', 'off', 'no'].includes(setting)) return false;
  return configured && out.isTTY === true;
}

/** The window title text: `project · title`, one printable line of at most {@link WINDOW_TITLE_MAX}. */
export function windowTitle(cwd: string, title?: string): string {
  const project = sanitizeTitle(basename(cwd), 40) || 'spine';
  const text = title ? `${project} · ${title}` : `${project} · spine`;
  return sanitizeTitle(text, WINDOW_TITLE_MAX);
}

/**
 * The terminal's own title and progress channels: the window title (OSC 2) says the project and
 * the session's title, progress (OSC 9;4) shows a busy indicator while a turn runs. Disabled
 * (writing nothing) when {@link terminalTitleEnabled} says so. `restore` clears progress and puts
 * back the title the terminal had (title stack; else an empty title).
 */
export class TerminalTitle {
  readonly #out: TitleOutput;
  readonly #cwd: string;
  readonly #enabled: boolean;
  #started = false;
  #busy = false;

  constructor(out: TitleOutput, cwd: string, enabled: boolean) {
    this.#out = out;
    this.#cwd = cwd;
    this.#enabled = enabled;
  }

  /** Whether anything is written at all. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** Sets the window title to the project and `title`. */
  set(title?: string): void {
    if (!this.#enabled) return;
    const push = this.#started ? '' : PUSH_TITLE;
    this.#started = true;
    this.#out.write(`${push}${OSC}2;${windowTitle(this.#cwd, title)}${BEL}`);
  }

  /** Shows (an indeterminate) progress while a turn runs; `false` clears it. */
  progress(busy: boolean): void {
    if (!this.#enabled || busy === this.#busy) return;
    this.#busy = busy;
    this.#out.write(`${OSC}9;4;${busy ? '3' : '0'}${BEL}`);
  }

  /** Clears progress and gives the terminal its own title back. */
  restore(): void {
    if (!this.#enabled) return;
    this.progress(false);
    if (this.#started) this.#out.write(`${OSC}2;${BEL}${POP_TITLE}`);
    this.#started = false;
  }
}
