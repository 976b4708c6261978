import { visibleText } from '@spine/protocol';

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

/** A style for `stream`: colours only on a terminal without `NO_COLOR`. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const on = Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
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

/**
 * The first `max` characters of `text` on one line, with an ellipsis when cut, and control and
 * escape sequences made visible ({@link visibleText}): safe to print on a terminal.
 */
export function preview(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return visibleText(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

/** A short summary of tool-call arguments: `path=src/a.ts command="npm test"`. */
export function summarizeArguments(raw: string, max = 80): string {
  try {
    const args = JSON.parse(raw) as unknown;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return preview(raw, max);
    const parts = Object.entries(args).map(([key, value]) => {
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      return `${key}=${preview(shown ?? '', 40)}`;
    });
    return preview(parts.join(' '), max);
  } catch {
    return preview(raw, max);
  }
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
