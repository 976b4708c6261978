// The content budget, applied to converted Markdown: a window cut at block boundaries (never
// inside a paragraph, list item or code fence), chosen by offset or by section heading, that
// says what was left out so the model can ask for it.

/** A heading of the Markdown with its position. */
export interface MarkdownHeading {
  /** Heading level, 1–6. */
  level: number;
  /** The heading as a reader sees it: no `#` marks, links reduced to their text, no escapes or emphasis marks. */
  text: string;
  /** Character offset of the heading line. */
  offset: number;
}

/** Options of {@link selectMarkdownWindow}. */
export interface MarkdownWindowOptions {
  /** Most characters in the window. */
  maxChars: number;
  /** Start at the line holding this character offset (a previous window's `end`). */
  offset?: number;
  /** Start at the heading with this text (exact, else the first one containing it; any case). */
  section?: string;
}

/** A part of converted Markdown, cut at block boundaries. */
export interface MarkdownSlice {
  /** The Markdown in the window. */
  content: string;
  /** Offset of the window's first character in the whole Markdown. */
  start: number;
  /** Offset just after the window's last character; pass it as `offset` to continue. */
  end: number;
  /** Length of the whole Markdown. */
  total: number;
  /** True when content after the window was left out. */
  truncated: boolean;
  /** Headings that start after the window, in order. */
  omittedSections: MarkdownHeading[];
  /** The heading the window was chosen by, with `section`. */
  section?: MarkdownHeading;
}

/** Result of {@link selectMarkdownWindow}: the slice, or why the section or offset is wrong. */
export type MarkdownWindow =
  | ({ ok: true } & MarkdownSlice)
  | { ok: false; error: string; headings: MarkdownHeading[] };

interface Layout {
  /** Offsets where a block starts (after a blank line outside code fences). */
  blocks: number[];
  headings: MarkdownHeading[];
}

/** A heading's text as a reader sees it (what the model will quote back as `section`). */
function plainHeading(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/(\*\*|__|[*_`])/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function layoutOf(markdown: string): Layout {
  const blocks = [0];
  const headings: MarkdownHeading[] = [];
  let fence: string | undefined;
  let offset = 0;
  let previousBlank = false;
  for (const line of markdown.split('\n')) {
    const trimmed = line.replace(/^(?:> ?)*/, '');
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker) {
      if (previousBlank) blocks.push(offset);
      fence = marker;
    } else if (line.trim() === '') {
      previousBlank = true;
    } else {
      if (previousBlank && offset > 0) blocks.push(offset);
      const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
      if (heading) {
        headings.push({
          level: heading[1]?.length ?? 1,
          text: plainHeading(heading[2] ?? ''),
          offset,
        });
      }
    }
    if (line.trim() !== '') previousBlank = false;
    offset += line.length + 1;
  }
  return { blocks, headings };
}

function cutPoint(markdown: string, start: number, limit: number, blocks: number[]): number {
  if (limit >= markdown.length) return markdown.length;
  let best = -1;
  for (const block of blocks) {
    if (block > start && block <= limit) best = block;
    if (block > limit) break;
  }
  if (best > start) return best;
  // One block larger than the budget: cut after its last line break (a window that starts on an
  // empty line ends right after it, so the next line is read whole if it fits), else inside the
  // line at the limit: only a line longer than the budget is cut, and the next window resumes
  // exactly there.
  const newline = markdown.lastIndexOf('\n', limit - 1);
  let end = newline >= start ? newline + 1 : limit;
  const code = markdown.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff && end - 1 > start) end--; // never split a surrogate pair
  return end;
}

/**
 * Chooses the part of a converted page that fits `maxChars`: from the start, from the line
 * holding `offset`, or from the heading matching `section` to the end of that section. The window
 * ends at a block boundary and lists the headings it left out.
 *
 * @example
 * ```ts
 * const window = selectMarkdownWindow(markdown, { maxChars: 20_000, section: 'Installation' });
 * if (window.ok) console.log(window.content, window.omittedSections.map((h) => h.text));
 * ```
 */
export function selectMarkdownWindow(
  markdown: string,
  options: MarkdownWindowOptions,
): MarkdownWindow {
  const { blocks, headings } = layoutOf(markdown);
  const total = markdown.length;
  let start = 0;
  let stop = total;
  let section: MarkdownHeading | undefined;
  if (options.section !== undefined) {
    const wanted = plainHeading(options.section.replace(/^#+\s*/, '')).toLowerCase();
    section =
      headings.find((heading) => heading.text.toLowerCase() === wanted) ??
      headings.find((heading) => heading.text.toLowerCase().includes(wanted));
    if (!wanted || !section) {
      return { ok: false, error: `No section heading matches "${options.section}"`, headings };
    }
    start = section.offset;
    const level = section.level;
    const next = headings.find((heading) => heading.offset > start && heading.level <= level);
    if (next) stop = next.offset;
  } else if (options.offset !== undefined && options.offset > 0) {
    if (options.offset >= total) {
      return {
        ok: false,
        error: `offset ${options.offset} is past the end of the content (${total} characters)`,
        headings,
      };
    }
    // An offset from a previous window is a line start; any other offset goes back to the start
    // of its line, unless that line alone is longer than the budget (it was cut inside).
    const offset = options.offset;
    const lineStart = markdown.lastIndexOf('\n', offset - 1) + 1;
    const lineEnd = markdown.indexOf('\n', offset);
    const lineLength = (lineEnd < 0 ? total : lineEnd) - lineStart;
    const atBoundary = markdown[offset - 1] === '\n' || markdown[offset] === '\n';
    start = atBoundary || lineLength > options.maxChars ? offset : lineStart;
  }
  const limit = Math.min(stop, start + Math.max(1, Math.floor(options.maxChars)));
  const end = limit >= stop ? stop : cutPoint(markdown, start, limit, blocks);
  return {
    ok: true,
    content: markdown.slice(start, end).trimEnd(),
    start,
    end,
    total,
    truncated: end < total,
    omittedSections: headings.filter((heading) => heading.offset >= end),
    ...(section ? { section } : {}),
  };
}
