import { readFile } from 'node:fs/promises';
import { LspPositionError } from '../errors.js';
import type { LspPosition } from '../types.js';
import { displayPath } from './paths.js';

/** Splits text into lines the way LSP counts them (`\r\n`, `\r` and `\n` all end a line). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Checks a 1-based position against the file on disk: the line must exist and the column may
 * be at most one past the line's last character (UTF-16 units, as LSP counts them).
 *
 * @throws an {@link LspPositionError} naming the file's line count or the line's length.
 */
export async function validatePosition(
  root: string,
  file: string,
  position: LspPosition,
): Promise<void> {
  const shown = displayPath(root, file);
  const { line, column } = position;
  if (!Number.isInteger(line) || !Number.isInteger(column) || line < 1 || column < 1) {
    throw new LspPositionError({
      path: shown,
      reason: `Line ${line} and column ${column} are not a position: both are whole numbers from 1 (1-based)`,
    });
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new LspPositionError({
      path: shown,
      reason: `${shown} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`,
    });
  }
  const lines = splitLines(text);
  // A trailing newline ends the last line; it does not start another one.
  const count = lines.length > 1 && lines.at(-1) === '' ? lines.length - 1 : lines.length;
  if (line > count) {
    throw new LspPositionError({
      path: shown,
      reason: `Line ${line} is past the end of ${shown}, which has ${count} line${count === 1 ? '' : 's'}; give a line from 1 to ${count}`,
    });
  }
  const length = lines[line - 1]!.length;
  if (column > length + 1) {
    throw new LspPositionError({
      path: shown,
      reason: `Column ${column} is past the end of line ${line} of ${shown}, which has ${length} character${length === 1 ? '' : 's'}; give a column from 1 to ${length + 1}`,
    });
  }
}

const STACK_FRAME =
  /^\s*(at\s|\d+:\s+0x[0-9a-f]+|stack backtrace:|note: run with `RUST_BACKTRACE)/i;

/**
 * Keeps the useful part of a server's error text: the message lines without stack frames,
 * bounded to `max` characters, so a model never sees a backtrace.
 */
export function conciseError(text: string, max = 400): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '' && !STACK_FRAME.test(line));
  const joined = lines.join('; ').replace(/\s+/g, ' ').trim();
  return joined.length > max ? `${joined.slice(0, max - 1)}…` : joined;
}
