// Removes wrapper programs (`sudo`, `env`, `command`, `nice`, `timeout`, `xargs`, `sh -c` …) in
// front of the program that really runs, so a rule for `rm` also sees `sudo -u root env -i rm`.
import type { ShellCommandLine } from '../shell-command-parse.js';

type Words = (string | undefined)[];

/** The program that runs once wrappers are removed. */
export interface UnwrappedCommand {
  program: string | undefined;
  args: Words;
  wrappers: string[];
  assignments: string[];
}

/** What {@link unwrapCommand} found: the command itself and command lines passed as strings. */
export interface Unwrapped {
  command: UnwrappedCommand | undefined;
  /** Commands found inside arguments (`sh -c '…'`, `eval …`, `find -exec …`). */
  innerLines: { wrappers: string[]; line: ShellCommandLine }[];
}

interface Hooks {
  parseInner(line: string): ShellCommandLine;
  doubt(reason: string, hidesCommands: boolean): void;
}

/** Option syntax of a wrapper: short options taking a value, long ones, positionals before the command. */
interface WrapperSpec {
  shortValue: string;
  longValue: readonly string[];
  positionals: number;
}

const spec = (shortValue: string, longValue: string[] = [], positionals = 0): WrapperSpec => ({
  shortValue,
  longValue,
  positionals,
});

const WRAPPERS: { [name: string]: WrapperSpec } = {
  command: spec(''),
  builtin: spec(''),
  exec: spec('a'),
  nice: spec('n', ['--adjustment']),
  nohup: spec(''),
  setsid: spec(''),
  time: spec('fo', ['--format', '--output']),
  timeout: spec('sk', ['--signal', '--kill-after'], 1),
  stdbuf: spec('ioe', ['--input', '--output', '--error']),
  ionice: spec('cnpPu', ['--class', '--classdata', '--pid', '--pgid', '--uid']),
  taskset: spec('', [], 1),
  chroot: spec('', ['--userspec', '--groups'], 1),
  sudo: spec('ugCDhprtTUR', [
    '--user',
    '--group',
    '--close-from',
    '--chdir',
    '--host',
    '--prompt',
    '--role',
    '--type',
    '--command-timeout',
    '--other-user',
    '--chroot',
  ]),
  doas: spec('uC'),
  xargs: spec('adEIiLlnPs', [
    '--arg-file',
    '--delimiter',
    '--eof',
    '--replace',
    '--max-lines',
    '--max-args',
    '--max-procs',
    '--max-chars',
    '--process-slot-var',
  ]),
  busybox: spec(''),
};

const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'posh',
  'rbash',
]);
/** Builtins after which later commands in the line may not be what they look like. */
const REDEFINERS = new Set(['source', '.', 'alias', 'hash', 'enable', 'shopt']);
const MAX_WRAPPERS = 16;

/** Removes wrappers from a command's words; `words[0]` is the program. */
export function unwrapCommand(words: Words, hooks: Hooks): Unwrapped {
  const out: Unwrapped = { command: undefined, innerLines: [] };
  let rest = words;
  const wrappers: string[] = [];
  const assignments: string[] = [];
  const finish = (program: string | undefined, args: Words): Unwrapped => {
    out.command = { program, args, wrappers: [...wrappers], assignments };
    return out;
  };
  for (let step = 0; step < MAX_WRAPPERS; step++) {
    // After a wrapper, NAME=value words are environment settings for sudo and env, and a program
    // that cannot exist for the others; either way the next word is the one to check.
    while (rest.length > 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] ?? '')) {
      assignments.push(rest[0]!);
      rest = rest.slice(1);
    }
    if (rest.length === 0) return finish(undefined, []);
    const program = rest[0];
    if (program === undefined) return finish(undefined, rest.slice(1));
    const name = program.split('/').pop() ?? program;
    const args = rest.slice(1);
    if (name === 'eval' || name === 'trap') {
      const code = name === 'trap' ? args.slice(0, 1) : args;
      if (code.every((word) => word !== undefined) && code.length > 0) {
        hooks.doubt(`it uses ${name}`, false);
        out.innerLines.push({
          wrappers: [...wrappers, name],
          line: hooks.parseInner(code.join(' ')),
        });
      } else if (code.length > 0) hooks.doubt(`it uses ${name} on text that is not fixed`, true);
      return finish(program, args);
    }
    if (REDEFINERS.has(name)) {
      hooks.doubt(`it uses ${name}, which can change what later commands run`, true);
      return finish(program, args);
    }
    if (SHELLS.has(name)) return shell(program, name, args);
    if (name === 'env') {
      const after = envArguments(args, assignments, hooks);
      if (after === undefined) return finish(program, args);
      if (after.length === 0) return finish(program, args);
      wrappers.push('env');
      rest = after;
      continue;
    }
    if (name === 'find') {
      findExec(args, [...wrappers, 'find'], out, hooks);
      return finish(program, args);
    }
    const wrapper = WRAPPERS[name];
    if (!wrapper) return finish(program, args);
    const after = skipOptions(args, wrapper);
    if (after === undefined) {
      hooks.doubt(`the options of ${name} are not fixed words`, true);
      return finish(program, args);
    }
    if (after.length === 0) return finish(program, args);
    wrappers.push(name);
    rest = after;
  }
  hooks.doubt('too many nested wrappers', true);
  return finish(rest[0], rest.slice(1));

  function shell(program: string, name: string, args: Words): Unwrapped {
    let index = 0;
    let hasCommandString = false;
    let clean = true;
    for (; index < args.length; index++) {
      const word = args[index];
      if (word === undefined && hasCommandString) break;
      if (word === undefined) {
        hooks.doubt(`the options of ${name} are not fixed words`, true);
        return finish(program, args);
      }
      if (word === '--' || word === '-') {
        index++;
        break;
      }
      if (
        /^[-+]o$/.test(word) ||
        /^[-+]O$/.test(word) ||
        word === '--rcfile' ||
        word === '--init-file'
      ) {
        index++;
        clean = false;
        continue;
      }
      if (word.startsWith('--')) {
        clean = false;
        continue;
      }
      if (/^[-+][A-Za-z]+$/.test(word)) {
        if (word.startsWith('-') && word.includes('c')) hasCommandString = true;
        if (!/^-[ceux]+$/.test(word)) clean = false;
        continue;
      }
      break;
    }
    if (!hasCommandString) {
      if (index >= args.length)
        hooks.doubt(`${name} reads commands from its input, which the rules cannot see`, true);
      return finish(program, args);
    }
    const code = args[index];
    if (code === undefined) {
      hooks.doubt(`the ${name} -c command is not a fixed string`, true);
      return finish(program, args);
    }
    out.innerLines.push({
      wrappers: [...wrappers, clean ? `${name} -c` : `${name} (options)`],
      line: hooks.parseInner(code),
    });
    return out;
  }
}

/** Skips a wrapper's options and positionals; `undefined` when an option word is not fixed. */
function skipOptions(args: Words, wrapper: WrapperSpec): Words | undefined {
  let index = 0;
  while (index < args.length) {
    const word = args[index];
    if (word === undefined) return undefined;
    if (word === '--') {
      index++;
      break;
    }
    if (word.startsWith('--')) {
      index += !word.includes('=') && wrapper.longValue.includes(word) ? 2 : 1;
      continue;
    }
    if (word.length > 1 && word.startsWith('-')) {
      index++;
      for (let at = 1; at < word.length; at++) {
        if (!wrapper.shortValue.includes(word[at]!)) continue;
        if (at === word.length - 1) index++;
        break;
      }
      continue;
    }
    break;
  }
  for (let count = 0; count < wrapper.positionals && index < args.length; count++) {
    if (args[index] === undefined) return undefined;
    index++;
  }
  return args.slice(index);
}

/** `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… COMMAND`: the command's words. */
function envArguments(args: Words, assignments: string[], hooks: Hooks): Words | undefined {
  const after = skipOptions(args, spec('uCS', ['--unset', '--chdir', '--split-string']));
  if (after === undefined) {
    hooks.doubt('the options of env are not fixed words', true);
    return undefined;
  }
  const split = args.findIndex(
    (word) => word !== undefined && (/^-[^-]*S/.test(word) || word.startsWith('--split-string')),
  );
  let index = 0;
  while (index < after.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(after[index] ?? '')) {
    assignments.push(after[index]!);
    index++;
  }
  const command = after.slice(index);
  if (split === -1) return command;
  const raw = args[split]!;
  const value = raw.includes('=')
    ? raw.slice(raw.indexOf('=') + 1)
    : raw.endsWith('S')
      ? args[split + 1]
      : raw.slice(raw.indexOf('S') + 1);
  if (value === undefined || /["'\\$]/.test(value)) {
    hooks.doubt('env -S splits a string the rules do not parse', true);
    return undefined;
  }
  return [...value.split(/\s+/).filter(Boolean), ...command];
}

/** Records the commands `find … -exec CMD … ;` runs. */
function findExec(args: Words, wrappers: string[], out: Unwrapped, hooks: Hooks): void {
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    if (word === undefined || !/^-(exec|execdir|ok|okdir)$/.test(word)) continue;
    const end = args.findIndex(
      (candidate, at) => at > index && (candidate === ';' || candidate === '+'),
    );
    const inner = args.slice(index + 1, end === -1 ? undefined : end);
    const unwrapped = unwrapCommand(inner, hooks);
    for (const line of unwrapped.innerLines)
      out.innerLines.push({ ...line, wrappers: [...wrappers, ...line.wrappers] });
    if (unwrapped.command)
      out.innerLines.push({
        wrappers,
        line: {
          commands: [
            {
              name: unwrapped.command.program?.split('/').pop(),
              programKind: 'unknown',
              program: unwrapped.command.program,
              args: unwrapped.command.args,
              wrappers: unwrapped.command.wrappers,
              assignments: unwrapped.command.assignments,
              writesFiles: false,
              text: inner.map((part) => part ?? '?').join(' '),
            },
          ],
          doubts: [],
        },
      });
    if (end === -1) break;
    index = end;
  }
}
