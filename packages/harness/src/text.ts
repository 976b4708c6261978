// One-line previews of model and tool text for live views (the subagent monitor, a front end's
// tool-call lines). Control and escape sequences are made visible, so the result is safe to show
// on a terminal.
import { visibleText } from '@spine/protocol';

/**
 * The first `max` characters of `text` on one line, with an ellipsis when cut, and control and
 * escape sequences made visible (`visibleText` of `@spine/protocol`): safe to print on a terminal.
 *
 * @example
 * preview('a\n  b', 10); // 'a b'
 */
export function preview(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return visibleText(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

/**
 * A short summary of tool-call arguments (raw JSON text): `path=src/a.ts command="npm test"`.
 * Text that is not a JSON object is previewed as it is.
 */
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
