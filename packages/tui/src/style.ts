import { colorLevel } from './palette.js';

/** ANSI styling that switches itself off when the stream is not a terminal or NO_COLOR is set. */
export interface Style {
  /** Faint text (secondary detail). */
  dim(text: string): string;
  /** Bold text (headings, questions). */
  bold(text: string): string;
  /** Red text (errors, denials). */
  red(text: string): string;
  /** Green text (success, the agent's answer). */
  green(text: string): string;
  /** Yellow text (tool calls, warnings). */
  yellow(text: string): string;
  /** Cyan text (the person's input, subagent labels). */
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) =>
  `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string): string => text;

/**
 * A style for `stream`: colours on a terminal (not `TERM=dumb`), never with `NO_COLOR`, and off a
 * terminal too with `FORCE_COLOR` (see {@link colorLevel}).
 */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const on = colorLevel(stream, env) > 0;
  if (!on) return { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Formats a cost in USD for people (`$0.0123`). */
export function formatCost(costUsd: number | undefined): string {
  return costUsd === undefined ? '-' : `$${costUsd < 1 ? costUsd.toFixed(4) : costUsd.toFixed(2)}`;
}

/** Formats a byte count (`12.3 KB`). */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '-';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
