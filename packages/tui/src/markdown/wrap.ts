// Word wrapping of styled text by display width. Styles and hyperlinks open at a line break are
// closed at its end and reopened on the next line, so a prefix (quote bar, list indent) written
// before a continuation line is never styled or linked by accident.

import { ANSI, displayWidth, graphemes, graphemeWidth } from './width.js';

type Atom = { esc: string } | { text: string; width: number };

const RESET = '\u001b[0m';
const LINK_CLOSE = '\u001b]8;;\u001b\\';

/** Which open codes an SGR close code ends. */
const CLOSES: Readonly<Record<string, (code: number) => boolean>> = {
  '22': (c) => c === 1 || c === 2,
  '23': (c) => c === 3,
  '24': (c) => c === 4,
  '29': (c) => c === 9,
  '39': (c) => (c >= 30 && c <= 37) || (c >= 90 && c <= 97),
};

/** The SGR and OSC 8 sequences in force, to carry them over a line break. */
class Active {
  #sgr: string[] = [];
  #link: string | undefined;

  apply(esc: string): void {
    if (esc.startsWith('\u001b]8;')) {
      this.#link =
        esc.startsWith('\u001b]8;;\u001b') || esc === '\u001b]8;;\u0007' ? undefined : esc;
      return;
    }
    const code = esc.slice(2, -1);
    const closes = CLOSES[code];
    if (code === '0' || code === '') this.#sgr = [];
    else if (closes) this.#sgr = this.#sgr.filter((s) => !closes(Number(s.slice(2, -1))));
    else this.#sgr.push(esc);
  }

  close(): string {
    return (this.#sgr.length ? RESET : '') + (this.#link ? LINK_CLOSE : '');
  }

  reopen(): string {
    return this.#sgr.join('') + (this.#link ?? '');
  }
}

function atomsOf(text: string): Atom[] {
  const atoms: Atom[] = [];
  let last = 0;
  for (const m of text.matchAll(ANSI)) {
    if (m.index > last) atoms.push(...textAtoms(text.slice(last, m.index)));
    atoms.push({ esc: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) atoms.push(...textAtoms(text.slice(last)));
  return atoms;
}

function textAtoms(text: string): Atom[] {
  return text
    .split(/( |\n)/)
    .flatMap((part) => (part ? [{ text: part, width: displayWidth(part) }] : []));
}

/** Builds lines one atom at a time. */
class LineBuilder {
  readonly lines: string[] = [];
  #line = '';
  #width = 0;
  #active = new Active();

  constructor(private readonly max: number) {}

  get width(): number {
    return this.#width;
  }

  esc(esc: string): void {
    this.#line += esc;
    this.#active.apply(esc);
  }

  text(text: string, width: number): void {
    this.#line += text;
    this.#width += width;
  }

  /** Writes `text` cutting it across lines by graphemes where it is wider than the line. */
  long(text: string): void {
    for (const g of graphemes(text)) {
      const w = graphemeWidth(g);
      if (this.#width + w > this.max && this.#width > 0) this.break();
      this.text(g, w);
    }
  }

  break(): void {
    this.lines.push(this.#line + this.#active.close());
    this.#line = this.#active.reopen();
    this.#width = 0;
  }

  finish(): string[] {
    this.lines.push(this.#line + this.#active.close());
    return this.lines;
  }
}

/**
 * Wraps styled `text` to `width` columns at spaces (a `\n` forces a break); a word wider than
 * the line is cut by graphemes. Returns the lines, each with its styles closed.
 */
export function wrapStyled(text: string, width: number): string[] {
  const max = Math.max(1, width);
  const out = new LineBuilder(max);
  const atoms = atomsOf(text);
  let pendingSpace = false;
  let inWord = false;
  // At the first atom of a word (escapes included): break before it or write the pending space.
  const startWord = (from: number): void => {
    let wordWidth = 0;
    let words = 0;
    for (let j = from; j < atoms.length; j++) {
      const next = atoms[j] as Atom;
      if ('esc' in next) continue;
      if (next.text === ' ' || next.text === '\n') break;
      wordWidth += next.width;
      words++;
    }
    if (words === 0) return;
    inWord = true;
    const space = pendingSpace ? 1 : 0;
    pendingSpace = false;
    if (out.width > 0 && out.width + space + wordWidth > max && wordWidth <= max) out.break();
    else if (space) out.text(' ', 1);
  };
  atoms.forEach((atom, i) => {
    if (!inWord && ('esc' in atom || (atom.text !== ' ' && atom.text !== '\n'))) startWord(i);
    if ('esc' in atom) out.esc(atom.esc);
    else if (atom.text === '\n') {
      out.break();
      pendingSpace = false;
      inWord = false;
    } else if (atom.text === ' ') {
      pendingSpace = out.width > 0;
      inWord = false;
    } else if (atom.width > max - out.width) out.long(atom.text);
    else out.text(atom.text, atom.width);
  });
  return out.finish();
}

/** Cuts `line` (no escapes) into pieces at most `width` columns wide, keeping every space. */
export function hardWrap(line: string, width: number): string[] {
  const max = Math.max(1, width);
  if (displayWidth(line) <= max) return [line];
  const out = new LineBuilder(max);
  out.long(line);
  return out.finish();
}

/**
 * Cuts a line with SGR styles into rows of at most `width` columns, by graphemes; styles open at
 * a cut are closed at the row's end and reopened on the next row.
 */
export function wrapRows(line: string, width: number): string[] {
  const max = Math.max(1, width);
  const rows: string[] = [];
  let row = '';
  let used = 0;
  let active: string[] = [];
  let last = 0;
  const text = (part: string): void => {
    for (const g of graphemes(part)) {
      const w = graphemeWidth(g);
      if (used + w > max && used > 0) {
        rows.push(active.length > 0 ? `${row}${RESET}` : row);
        row = active.join('');
        used = 0;
      }
      row += g;
      used += w;
    }
  };
  for (const match of line.matchAll(ANSI)) {
    text(line.slice(last, match.index));
    row += match[0];
    active = match[0] === RESET || match[0] === '\u001b[m' ? [] : [...active, match[0]];
    last = match.index + match[0].length;
  }
  text(line.slice(last));
  rows.push(row);
  return rows;
}
