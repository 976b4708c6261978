// A REPL's live view of running subagents (spine's interactive mode uses it). On a terminal: one
// line per running child (label, description, current tool with its arguments, steps, elapsed
// time) kept below the output and redrawn in place; `watch(n)` (spine's `/agents watch <n>`)
// expands one child to its recent transcript under its line. Everything else the REPL prints
// passes through `write`, which lifts the panel first and puts it back after a complete line (never
// while a question waits at the end of a line). Not on a terminal: plain appended lines as
// children start, call tools and end.

import { type ChildMonitor, childLabel, childSessionAt, type MonitorEvent } from '@spine/harness';
import { type SessionLog, visibleText } from '@spine/protocol';
import type { CodeHighlighter } from './markdown/highlight.js';
import { markdownPreview, PREVIEW_ROWS } from './markdown/preview.js';
import { displayWidth } from './markdown/width.js';
import { figures, fit, synchronized } from './panel-lines.js';
import type { Style } from './style.js';

/** Transcript lines shown under an expanded child on a terminal. */
const EXPANDED_LINES = 10;
/** Transcript lines printed by `/agents watch` for a finished child or without a terminal. */
const PRINTED_LINES = 30;

/** Options of {@link SubagentPanel}. */
export interface SubagentPanelOptions {
  /** Draw in place (a terminal) or append plain lines. */
  tty: boolean;
  /** Terminal width, to keep every panel line on one row. */
  columns: () => number;
  /** Called after the panel was redrawn (the REPL re-shows a half-typed input line). */
  afterDraw?: () => void;
  /** The parent session: children from before this process are found in its log. */
  session?: SessionLog;
  /**
   * The streamed block's preview is rendered Markdown, with these options as the finished
   * blocks (so a block keeps its look when committed); without them it is shown as written.
   */
  markdown?: { hyperlinks?: boolean; highlight?: CodeHighlighter };
}

/** The shortest time between two redraws for the streamed block's preview alone. */
const PREVIEW_MS = 50;

/**
 * Quiet time after the last resize before the live region is drawn again. Each resize reflows the
 * terminal's rows, and while a window is dragged the resizes come faster than a draw reaches the
 * terminal: a draw made for one width lands after the next reflow and the rows it counted are
 * wrong (stale rows left behind, or finished rows erased). A terminal may also tell the program
 * late: tmux reflows its screen at once but passes sizes on at most every 250 ms, an intermediate
 * one first. So nothing is written until the size has not changed for longer than that; then the
 * live region is lifted and drawn once, counted at the final width.
 */
const RESIZE_SETTLE_MS = 350;

/**
 * The live view of running subagents below a REPL's output, fed by `@spine/harness`'s child
 * monitor. On a terminal it keeps one line per running child under everything else and redraws it
 * in place (elapsed times tick once a second); elsewhere it appends a line as children start, call
 * tools and end. All other output must go through {@link SubagentPanel.write} (or
 * {@link SubagentPanel.stream}) so the panel can lift itself first. Its messages name spine's
 * commands (`/agents watch`, `spine show`).
 */
export class SubagentPanel {
  readonly #out: NodeJS.WritableStream;
  readonly #style: Style;
  readonly #monitor: ChildMonitor;
  readonly #options: SubagentPanelOptions;
  readonly #unsubscribe: () => void;
  /** Columns of each drawn panel line (none when not drawn). */
  #drawn: number[] = [];
  /** The terminal's width when the panel was drawn. */
  #drawnWidth = 0;
  /** Running tools' last output lines, by call. */
  readonly #live = new Map<string, readonly string[]>();
  /** The Markdown block being streamed, shown at the top of the live region until it is finished. */
  #preview = '';
  #previewTimer: ReturnType<typeof setTimeout> | undefined;
  #atLineStart = true;
  #watched: number | undefined;
  #ticker: ReturnType<typeof setInterval> | undefined;
  /** Output held back while a question waits at the end of the screen. */
  #held: string[] | undefined;
  /** Output held back while the terminal is being resized (see RESIZE_SETTLE_MS). */
  #deferred: string[] | undefined;
  #resizeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    out: NodeJS.WritableStream,
    style: Style,
    monitor: ChildMonitor,
    options: SubagentPanelOptions,
  ) {
    this.#out = out;
    this.#style = style;
    this.#monitor = monitor;
    this.#options = options;
    this.#unsubscribe = monitor.subscribe((event) => this.#onEvent(event));
  }

  /** Writes output: the panel is lifted first and redrawn after a complete line. */
  write(text: string): void {
    if (text.length === 0) return;
    if (!this.#held) this.#noticeResize();
    const queue = this.#held ?? this.#deferred;
    if (queue) {
      queue.push(text);
      return;
    }
    // Lift the panel, write, draw it again: one write, in one synchronized update (no flicker).
    const lift = this.#lift();
    this.#atLineStart = text.endsWith('\n');
    const drawn = this.#options.tty && this.#atLineStart ? this.#lines() : [];
    const body = `${text}${drawn.map((line) => `${line}\n`).join('')}`;
    this.#raw(lift === '' && drawn.length === 0 ? body : synchronized(lift, body));
    this.#drawn = drawn.map(displayWidth);
    this.#drawnWidth = this.#options.columns();
    if (drawn.length > 0) this.#options.afterDraw?.();
  }

  /**
   * Sets the live lines of `key` (a running tool's last output lines, already safe for the
   * terminal), shown under the subagents on a terminal; `undefined` removes them.
   */
  setLive(key: string, lines: readonly string[] | undefined): void {
    if (lines === undefined || lines.length === 0) this.#live.delete(key);
    else this.#live.set(key, lines);
    this.#redraw();
  }

  /**
   * Sets the block of the answer still being streamed (raw model text; made terminal-safe here),
   * shown as its last few rows at the top of the live region on a terminal; `''` removes it.
   * Rows are wrapped at the present width, so a resize rewraps the preview too.
   */
  preview(pending: string): void {
    if (pending === this.#preview) return;
    this.#preview = pending;
    // At most one redraw per PREVIEW_MS for the preview alone (a fast stream would otherwise
    // redraw on every chunk); any other write in between draws the latest preview anyway.
    if (this.#previewTimer) return;
    this.#previewTimer = setTimeout(() => {
      this.#previewTimer = undefined;
      this.#redraw();
    }, PREVIEW_MS);
    this.#previewTimer.unref();
  }

  /**
   * The terminal was resized: once resizes stop for a moment, only the live region is redrawn
   * (its old rows counted at the new width, as the terminal reflowed them). Output written
   * meanwhile waits for that redraw; finished lines are never redrawn.
   */
  resize(): void {
    if (!this.#options.tty) return;
    if (this.#resizeTimer) clearTimeout(this.#resizeTimer);
    this.#deferred ??= [];
    this.#resizeTimer = setTimeout(() => this.#settle(), RESIZE_SETTLE_MS);
  }

  /**
   * A resize the program has not been told of yet (the terminal reflowed before its signal
   * arrived): treated as one, so nothing is drawn for the old width.
   */
  #noticeResize(): void {
    if (this.#deferred || this.#drawn.length === 0) return;
    if (this.#options.columns() !== this.#drawnWidth) this.resize();
  }

  /** The size settled: the live region is lifted and drawn again with what waited, in one write. */
  #settle(): void {
    if (this.#resizeTimer) clearTimeout(this.#resizeTimer);
    this.#resizeTimer = undefined;
    const waiting = this.#deferred;
    if (waiting === undefined) return;
    this.#deferred = undefined;
    // The drawn rows are counted at the present width, as the terminal reflowed them.
    this.#drawnWidth = this.#options.columns();
    // A question written during the resize is shown now; what came after it stays held.
    const held = this.#held;
    this.#held = undefined;
    const text = waiting.join('');
    if (text === '') this.#redraw();
    else this.write(text);
    this.#held = held;
  }

  /** Writes `text` as a line of its own (after a newline when the cursor is mid-line). */
  line(text: string): void {
    const fresh = this.#held || this.#atLineStart || text.startsWith('\n');
    this.write(fresh ? `${text}\n` : `\n${text}\n`);
  }

  /** A stream for code that writes to a stream (live output, slash commands). */
  stream(): NodeJS.WritableStream {
    const out = this.#out as NodeJS.WriteStream;
    const panel = this;
    return {
      write(chunk: string | Uint8Array) {
        panel.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      },
      get destroyed() {
        return out.destroyed;
      },
    } as unknown as NodeJS.WritableStream;
  }

  /**
   * Writes a question that waits for the person's answer and holds back all other output (other
   * children's records, the parent's tool results) until {@link release}, so the question stays
   * the last thing on the screen.
   */
  ask(question: string): void {
    // Asked again (the whole diff, then the question): what was held back stays held.
    const held = this.#held ?? [];
    this.#held = undefined;
    this.write(question);
    this.#held = held;
  }

  /** The question was answered: writes `text` (the answer's note), then the held-back output. */
  release(text = ''): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.write(text);
    for (const chunk of held) this.write(chunk);
  }

  /** The person pressed Enter: the echoed line now sits below the panel and goes with it. */
  lineEntered(): void {
    if (this.#drawn.length > 0) this.#drawn.push(0);
    this.#atLineStart = true;
  }

  /**
   * `/agents watch <n>` expands child `n` (its recent transcript, followed live while it runs);
   * `/agents watch` alone collapses it again.
   */
  watch(number: number | undefined): void {
    const style = this.#style;
    if (number === undefined) {
      this.#watched = undefined;
      this.write(style.dim('subagent view collapsed\n'));
      return;
    }
    const child = this.#monitor.byNumber(number);
    if (!child) {
      const session = this.#options.session;
      void (session ? childSessionAt(session, number) : Promise.resolve(undefined)).then(
        (earlier) =>
          this.write(
            earlier
              ? `subagent #${number} ran before this session was opened here; spine show ${visibleText(earlier)} shows it\n`
              : style.red(`no subagent #${number} has run in this session yet\n`),
          ),
        (error: unknown) =>
          this.write(style.red(`subagent #${number} not found: ${visibleText(String(error))}\n`)),
      );
      return;
    }
    this.#watched = number;
    const label = childLabel(child);
    const header = `${label} ${child.info.description} · ${child.ended ? child.ended.reason : 'running'} · ${figures(child, Date.now())}`;
    if (child.ended || !this.#options.tty) {
      const lines = child.transcript.slice(-PRINTED_LINES).map((entry) => `      ${entry.text}`);
      this.write(
        `${style.cyan(header)}\n${style.dim(lines.join('\n') || '      (no tool calls yet)')}\n`,
      );
      if (!this.#options.tty && !child.ended)
        this.write(style.dim(`following ${label}; /agents watch collapses\n`));
      return;
    }
    this.write(style.dim(`expanded ${label} below; /agents watch collapses\n`));
  }

  /** Stops drawing and following. */
  dispose(): void {
    if (this.#previewTimer) clearTimeout(this.#previewTimer);
    this.#previewTimer = undefined;
    this.#preview = '';
    this.#settle();
    this.release();
    this.#erase();
    this.#unsubscribe();
    this.#stopTicker();
  }

  #raw(text: string): void {
    if ((this.#out as NodeJS.WriteStream).destroyed) return;
    this.#out.write(text);
  }

  #onEvent(event: MonitorEvent): void {
    const { child } = event;
    const style = this.#style;
    const label = style.cyan(childLabel(child));
    if (event.type === 'end') {
      const mark = child.ended?.reason === 'completed' ? style.green('✓') : style.red('✗');
      this.write(
        `  ${mark} ${label} ${style.dim(`${child.info.description} · ${child.ended?.reason} · ${figures(child, Date.now())}`)}\n`,
      );
      if (this.#monitor.running().length === 0) this.#stopTicker();
      return;
    }
    if (this.#options.tty) {
      if (event.type === 'start') this.#startTicker();
      this.#redraw();
      return;
    }
    // Not a terminal: one appended line per start and tool call; results too for a watched child.
    if (event.type === 'start')
      this.write(
        `  ${style.dim('↳')} ${label} ${style.dim(`started: ${child.info.description}`)}\n`,
      );
    else if (event.entry?.kind === 'call')
      this.write(
        `  ${style.dim('↳')} ${label} ${style.dim(`${event.entry.text.slice(2)} · ${figures(child, Date.now())}`)}\n`,
      );
    else if (event.entry && this.#watched === child.number)
      this.write(`      ${label} ${style.dim(event.entry.text)}\n`);
  }

  #lines(): string[] {
    const style = this.#style;
    const width = Math.max(20, this.#options.columns() - 1);
    const now = Date.now();
    const { markdown } = this.#options;
    const lines: string[] =
      this.#preview === ''
        ? []
        : markdown
          ? markdownPreview(this.#preview, this.#options.columns(), PREVIEW_ROWS, {
              ...markdown,
              style: this.#style,
            })
          : markdownPreview(this.#preview, width);
    for (const child of this.#monitor.running()) {
      const label = childLabel(child);
      const doing = child.current
        ? `${child.current.name} ${child.current.summary}`
        : 'waiting for the model';
      const rest = fit(
        ` ${child.info.description} · ${doing} · ${figures(child, now)}`,
        width - 4 - label.length,
      );
      lines.push(`  ${style.yellow('⋯')} ${style.cyan(label)}${style.dim(rest)}`);
      if (this.#watched === child.number) {
        const shown = child.transcript.slice(-EXPANDED_LINES);
        if (shown.length === 0) lines.push(style.dim('      (no tool calls yet)'));
        for (const entry of shown) lines.push(style.dim(fit(`      ${entry.text}`, width)));
      }
    }
    for (const shown of this.#live.values()) {
      for (const line of shown)
        lines.push(`    ${style.dim('│')} ${fit(line.replace(/\t/g, '    '), width - 6)}`);
    }
    return lines;
  }

  /** Replaces the drawn panel with the current one in a single write (no flicker). */
  #redraw(): void {
    this.#noticeResize();
    if (!this.#options.tty || !this.#atLineStart || this.#held || this.#deferred) return;
    const lines = this.#lines();
    if (this.#drawn.length === 0 && lines.length === 0) return;
    this.#raw(synchronized(this.#lift(), lines.map((line) => `${line}\n`).join('')));
    this.#drawn = lines.map(displayWidth);
    this.#drawnWidth = this.#options.columns();
    if (lines.length > 0) this.#options.afterDraw?.();
  }

  /**
   * The sequence that goes up to the panel's first row, column 0, and clears below it (never the
   * screen or the scrollback); '' when nothing is drawn. Rows are counted at the present width: a
   * terminal that reflows after narrowing has wrapped each line over several rows.
   */
  #lift(): string {
    if (this.#drawn.length === 0) return '';
    const columns = Math.max(1, this.#options.columns());
    const rows = this.#drawn.reduce((sum, used) => sum + Math.max(1, Math.ceil(used / columns)), 0);
    this.#drawn = [];
    return `\x1b[${rows}A\r\x1b[J`;
  }

  #erase(): void {
    const lift = this.#lift();
    if (lift) this.#raw(synchronized(lift, ''));
  }

  #startTicker(): void {
    if (this.#ticker) return;
    // Elapsed times move once a second while children run.
    this.#ticker = setInterval(() => this.#redraw(), 1000);
    this.#ticker.unref();
  }

  #stopTicker(): void {
    if (this.#ticker) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }
}
