import {
  type CodeHighlighter,
  codePalette,
  colorLevel,
  loadCodeHighlighter,
  terminalBackground,
} from '@spine/tui';

/**
 * The highlighter for fenced code on `stream`: highlight.js (an optional dependency) with the
 * palette for the terminal's colours and background; undefined off a terminal, without colour,
 * or when highlight.js is not installed (code is then plain).
 */
export async function terminalHighlighter(stream: {
  isTTY?: boolean;
}): Promise<CodeHighlighter | undefined> {
  if (!stream.isTTY) return undefined;
  return loadCodeHighlighter(codePalette(colorLevel(stream), terminalBackground()));
}
