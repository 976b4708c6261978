import { fileURLToPath } from 'node:url';
import type { Parser, Node as SyntaxNode } from 'web-tree-sitter';
import { staticWord } from './internal/shell-words.js';
import { unwrapCommand } from './internal/shell-wrappers.js';

/** One command a shell command line will run, after wrappers such as `sudo` or `env` are removed. */
export interface ShellCommand {
  /**
   * The program's name: the last path segment of the word in the program position, with quotes
   * and escapes removed (`\rm`, `'rm'`, `/bin/rm` → `rm`); `undefined` when it is not a fixed word
   * (`$PROGRAM`, `$(…)`, a glob).
   */
  name: string | undefined;
  /** How the program was written: a bare name, an absolute or relative path, or not fixed. */
  programKind: 'name' | 'absolute' | 'relative' | 'unknown';
  /** The program word as written after unquoting, when fixed. */
  program: string | undefined;
  /** The arguments after the program; `undefined` for a word whose value is not fixed. */
  args: (string | undefined)[];
  /** Wrappers removed in front of it, outermost first (`sudo`, `env`, `bash -c` …). */
  wrappers: string[];
  /** Variable assignments that apply to it (`A=1 cmd`, `env A=1 cmd`, or a bare `A=1`). */
  assignments: string[];
  /** Its output goes to a file (a redirection other than to `/dev/null` or another descriptor). */
  writesFiles: boolean;
  /** The command's source text. */
  text: string;
}

/** A reason the parse is not a complete account of what the line runs. */
export interface ShellDoubt {
  /** What was not understood. */
  reason: string;
  /** True when the construct may run commands that are not in `commands` (eval, an unknown program). */
  hidesCommands: boolean;
}

/** What a command line runs, as far as a parser can tell. */
export interface ShellCommandLine {
  /** Every command found: in lists, pipelines, subshells, substitutions and `sh -c` strings. */
  commands: ShellCommand[];
  /** Constructs the analysis could not see through; empty when the parse is confident. */
  doubts: ShellDoubt[];
}

/** Parses bash command lines into the commands they run. */
export interface ShellCommandParser {
  /** Parses one command line (synchronously). */
  parse(commandLine: string): ShellCommandLine;
}

const MAX_DEPTH = 6;
/**
 * tree-sitter-bash 0.25.1's WebAssembly grammar and web-tree-sitter 0.27.2's runtime, shipped in
 * the package (`grammars/`, MIT; web-tree-sitter's JavaScript is bundled into `dist/`): the npm
 * packages bring 25 MB of native sources, prebuilds and debug builds for these two files. The
 * paths hold from `src/` and from `dist/` alike.
 */
const GRAMMAR = new URL('../grammars/tree-sitter-bash.wasm', import.meta.url);
const RUNTIME = new URL('../grammars/web-tree-sitter.wasm', import.meta.url);
const MAX_INPUT_CHARS = 100_000;
let loading: Promise<ShellCommandParser> | undefined;
let loaded: ShellCommandParser | undefined;

/**
 * Loads the bash grammar (tree-sitter-bash's WebAssembly build, run by web-tree-sitter) once per process
 * and returns the parser.
 *
 * @throws an {@link Error} when the grammar cannot be loaded (web-tree-sitter or the grammar file
 *   is missing).
 * @example
 * ```ts
 * const parser = await loadShellParser();
 * parser.parse('\\rm -rf x; sudo /bin/ls').commands.map((command) => command.name); // ['rm', 'ls']
 * ```
 */
export function loadShellParser(): Promise<ShellCommandParser> {
  loading ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init({ locateFile: () => fileURLToPath(RUNTIME) });
    const language = await Language.load(fileURLToPath(GRAMMAR));
    const parser = new Parser();
    parser.setLanguage(language);
    loaded = { parse: (line) => parseLine(parser, line, 0) };
    return loaded;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The parser when {@link loadShellParser} has finished, else `undefined`. */
export function shellParserIfLoaded(): ShellCommandParser | undefined {
  return loaded;
}

function parseLine(parser: Parser, line: string, depth: number): ShellCommandLine {
  const result: ShellCommandLine = { commands: [], doubts: [] };
  if (depth > MAX_DEPTH) {
    result.doubts.push({ reason: 'shell strings nested too deeply', hidesCommands: true });
    return result;
  }
  if (line.length > MAX_INPUT_CHARS || line.includes('\0')) {
    result.doubts.push({
      reason: 'the command line is too long or holds a NUL',
      hidesCommands: true,
    });
    return result;
  }
  const tree = parser.parse(line);
  if (!tree) {
    result.doubts.push({ reason: 'the parser gave up', hidesCommands: true });
    return result;
  }
  try {
    const walker = new Walker(result, (inner) => parseLine(parser, inner, depth + 1));
    walker.visit(tree.rootNode);
  } finally {
    tree.delete();
  }
  return result;
}

/** Words bash reads as syntax in command position; the grammar sometimes takes them for programs. */
const RESERVED_WORDS = new Set([
  'do',
  'done',
  'then',
  'fi',
  'else',
  'elif',
  'esac',
  'in',
  '{',
  '}',
  '!',
  'function',
  'select',
  'until',
  'while',
  'for',
  'if',
  'case',
  'coproc',
  '[[',
  ']]',
]);
const OUTPUT_REDIRECT = /^(&?>>?|>\||<>|&>>?)$/;
const SIMPLE_EXPANSION = /^\$\{?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[#?@*$!-])\}?$/;
const STATEMENT_PARENTS = new Set([
  'program',
  'list',
  'compound_statement',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'case_item',
  'command_substitution',
  'process_substitution',
  'pipeline',
  'negated_command',
  'redirected_statement',
  'while_statement',
]);

/** Walks a syntax tree and records commands and doubts. */
class Walker {
  constructor(
    private readonly result: ShellCommandLine,
    private readonly parseInner: (line: string) => ShellCommandLine,
  ) {}

  doubt(reason: string, hidesCommands: boolean): void {
    if (!this.result.doubts.some((known) => known.reason === reason))
      this.result.doubts.push({ reason, hidesCommands });
  }

  visit(node: SyntaxNode): void {
    if (node.isError || node.isMissing) this.doubt('the line has a syntax error', true);
    switch (node.type) {
      case 'command':
        this.command(node);
        return;
      case 'declaration_command':
      case 'unset_command':
        this.declaration(node);
        return;
      case 'variable_assignment':
      case 'variable_assignments':
        if (node.parent && STATEMENT_PARENTS.has(node.parent.type)) this.assignment(node);
        break;
      case 'redirected_statement':
        this.redirected(node);
        return;
      case 'function_definition':
        this.doubt('it defines a shell function', true);
        break;
      case 'arithmetic_expansion':
      case 'c_style_for_statement':
        this.doubt('it has an arithmetic expansion', false);
        break;
      case 'compound_statement':
        if (node.text.startsWith('((')) this.doubt('it has an arithmetic expansion', false);
        break;
      case 'word':
        // bash ends a word at an unquoted line break; a grammar that does not is misreading the line.
        if (hasBareLineBreak(node.text))
          this.doubt('the grammar reads a line break inside a word, unlike bash', true);
        break;
      case 'expansion':
        if (!SIMPLE_EXPANSION.test(node.text))
          this.doubt(`it has the parameter expansion ${node.text.slice(0, 40)}`, false);
        break;
    }
    this.children(node);
  }

  children(node: SyntaxNode): void {
    for (const child of node.children) if (child) this.visit(child);
  }

  redirected(node: SyntaxNode): void {
    const first = this.result.commands.length;
    const body = node.childForFieldName('body');
    for (const child of node.children) {
      if (!child || (body && child.equals(body)) || child.type.endsWith('redirect')) continue;
      this.visit(child);
    }
    if (body) this.visit(body);
    let writes = false;
    for (const redirect of node.childrenForFieldName('redirect')) {
      if (redirect && this.redirectWrites(redirect)) writes = true;
      if (redirect) this.visit(redirect);
    }
    if (writes)
      for (let index = first; index < this.result.commands.length; index++)
        this.result.commands[index]!.writesFiles = true;
    if (first === this.result.commands.length && body === null)
      this.record({ words: [], assignments: [], text: node.text, writesFiles: writes });
  }

  /** Whether a redirection writes a file (anything but a descriptor duplicate or /dev/null). */
  redirectWrites(redirect: SyntaxNode): boolean {
    if (redirect.type !== 'file_redirect') return false;
    const operator = redirect.children.find((child) => child && !child.isNamed)?.text ?? '';
    if (!OUTPUT_REDIRECT.test(operator) && operator !== '>&' && operator !== '&>') return false;
    const destination = redirect.childForFieldName('destination');
    const target = destination ? staticWord(destination) : undefined;
    if (target === '/dev/null') return false;
    if (operator === '>&' && target !== undefined && /^(?:[0-9]+|-)$/.test(target)) return false;
    return true;
  }

  assignment(node: SyntaxNode): void {
    this.record({ words: [], assignments: [node.text], text: node.text, writesFiles: false });
  }

  declaration(node: SyntaxNode): void {
    const keyword = node.children.find((child) => child && !child.isNamed)?.text ?? node.type;
    const args = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
    this.record({
      words: [keyword, ...args.map((arg) => staticWord(arg))],
      assignments: [],
      text: node.text,
      writesFiles: false,
    });
    this.children(node);
  }

  command(node: SyntaxNode): void {
    const assignments: string[] = [];
    const words: (string | undefined)[] = [];
    let writesFiles = false;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'variable_assignment') assignments.push(child.text);
      else if (child.type === 'command_name') {
        const word = child.firstNamedChild;
        words.push(word ? programWord(word) : undefined);
      } else if (child.type.endsWith('redirect')) {
        if (this.redirectWrites(child)) writesFiles = true;
      } else words.push(staticWord(child));
      this.visit(child);
    }
    this.record({ words, assignments, text: node.text, writesFiles });
  }

  record(raw: {
    words: (string | undefined)[];
    assignments: string[];
    text: string;
    writesFiles: boolean;
  }): void {
    const first = raw.words[0];
    if (first !== undefined && RESERVED_WORDS.has(first))
      this.doubt(`the reserved word ${first} stands where a command is expected`, true);
    const unwrapped = unwrapCommand(raw.words, {
      parseInner: this.parseInner,
      doubt: (reason, hides) => this.doubt(reason, hides),
    });
    for (const inner of unwrapped.innerLines) {
      for (const command of inner.line.commands)
        this.result.commands.push({
          ...command,
          wrappers: [...inner.wrappers, ...command.wrappers],
          writesFiles: command.writesFiles || raw.writesFiles,
        });
      for (const doubt of inner.line.doubts) this.doubt(doubt.reason, doubt.hidesCommands);
    }
    if (!unwrapped.command) return;
    const { program, args, wrappers, assignments } = unwrapped.command;
    const name = program === undefined ? undefined : lastSegment(program);
    if (raw.words.length > 0 && name === undefined)
      this.doubt('a program name is not a fixed word', true);
    this.result.commands.push({
      name,
      programKind:
        program === undefined
          ? raw.words.length === 0
            ? 'name'
            : 'unknown'
          : program.startsWith('/')
            ? 'absolute'
            : program.includes('/')
              ? 'relative'
              : 'name',
      program,
      args,
      wrappers,
      assignments: [...raw.assignments, ...assignments],
      writesFiles: raw.writesFiles,
      text: raw.text,
    });
  }
}

/** True when `text` holds a line break not escaped by an odd run of backslashes. */
function hasBareLineBreak(text: string): boolean {
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    let slashes = 0;
    while (at - 1 - slashes >= 0 && text[at - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 0) return true;
  }
  return false;
}

/** The program word's value, or `undefined` when globbing or expansion could change it. */
function programWord(node: SyntaxNode): string | undefined {
  const value = staticWord(node);
  if (value === undefined || value === '') return undefined;
  return value;
}

function lastSegment(program: string): string | undefined {
  const segment = program.replace(/\/+$/, '').split('/').pop();
  return segment === undefined || segment === '' ? undefined : segment;
}
