// The value of a shell word when it is fixed: quotes and escapes removed, no expansion, glob,
// brace or tilde that could change it at run time.
import type { Node as SyntaxNode } from 'web-tree-sitter';

/** The word's value, or `undefined` when the shell could expand it into something else. */
export function staticWord(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'word':
      return unquotedWord(node.text);
    case 'number':
      return /^[0-9]+$/.test(node.text) ? node.text : undefined;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      return doubleQuoted(node);
    case 'translated_string': {
      const inner = node.firstNamedChild;
      return inner ? staticWord(inner) : undefined;
    }
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'concatenation': {
      let value = '';
      for (const part of node.children) {
        if (!part) return undefined;
        const text = staticWord(part);
        if (text === undefined) return undefined;
        value += text;
      }
      return value;
    }
    case 'command_name': {
      const inner = node.firstNamedChild;
      return inner ? staticWord(inner) : undefined;
    }
    default:
      return undefined;
  }
}

/** An unquoted word: backslash escapes removed; `undefined` if it holds globs, braces, `~` or `$`. */
function unquotedWord(text: string): string | undefined {
  let value = '';
  let braces = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '\\') {
      const next = text[index + 1];
      index++;
      if (next === undefined) return undefined;
      if (next !== '\n') value += next;
      continue;
    }
    if ('*?[$`'.includes(char)) return undefined;
    if (char === '~' && index === 0) return undefined;
    if (char === '{') braces = true;
    if (braces && (char === ',' || (char === '.' && text[index + 1] === '.'))) return undefined;
    value += char;
  }
  return value;
}

function doubleQuoted(node: SyntaxNode): string | undefined {
  for (const child of node.namedChildren) if (child?.type !== 'string_content') return undefined;
  const inner = node.text.slice(1, -1);
  let value = '';
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index]!;
    if (char === '$' || char === '`') return undefined;
    if (char === '\\' && index + 1 < inner.length && '$`"\\\n'.includes(inner[index + 1]!)) {
      index++;
      if (inner[index] !== '\n') value += inner[index];
      continue;
    }
    value += char;
  }
  return value;
}

const SIMPLE_ESCAPES: { [key: string]: string } = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes the body of `$'…'` as bash does. */
function decodeAnsiC(body: string): string | undefined {
  let value = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (char !== '\\') {
      value += char;
      continue;
    }
    const next = body[++index];
    if (next === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      continue;
    }
    const numeric =
      /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(
        body.slice(index),
      );
    if (numeric) {
      const [all, hex, u4, u8, octal] = numeric;
      const code = hex
        ? Number.parseInt(hex, 16)
        : u4
          ? Number.parseInt(u4, 16)
          : u8
            ? Number.parseInt(u8, 16)
            : Number.parseInt(octal!, 8);
      if (code > 0x10ffff) return undefined;
      value += String.fromCodePoint(code);
      index += all.length - 1;
      continue;
    }
    if (next === 'c') {
      const control = body[++index];
      if (control === undefined) return undefined;
      value += String.fromCharCode(control.toUpperCase().charCodeAt(0) & 0x1f);
      continue;
    }
    value += `\\${next}`;
  }
  return value;
}
