import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellCommandParser } from './shell-command-parse.js';

let parser: ShellCommandParser;
beforeAll(async () => {
  parser = await loadShellParser();
}, 60_000);

const names = (line: string): (string | undefined)[] =>
  parser.parse(line).commands.map((command) => command.name);
const doubts = (line: string): string[] => parser.parse(line).doubts.map((doubt) => doubt.reason);

describe('parsing shell command lines into the commands they run', () => {
  it.each([
    ['git status', ['git']],
    ['\\rm -rf x', ['rm']],
    ['/bin/rm a', ['rm']],
    ["'rm' a", ['rm']],
    ['"rm" a', ['rm']],
    ['r""m a', ['rm']],
    ["$'\\x72m' a", ['rm']],
    ["$'\\162m' a", ['rm']],
    ['command rm b', ['rm']],
    ['true; rm x', ['true', 'rm']],
    ['a && b || c', ['a', 'b', 'c']],
    ['a | b |& c', ['a', 'b', 'c']],
    ['(a; b)', ['a', 'b']],
    ['{ a; b; }', ['a', 'b']],
    ['echo $(rm x)', ['rm', 'echo']],
    ['echo `rm x`', ['rm', 'echo']],
    ['cat <(rm x) >(tee y)', ['rm', 'tee', 'cat']],
    ['echo "a$(rm x)b"', ['rm', 'echo']],
    ["bash -c 'rm -rf /'", ['rm']],
    ["sh -c 'a; b'", ['a', 'b']],
    ['bash -c "bash -c \'rm x\'"', ['rm']],
    ['env -i A=1 sudo -u root rm x', ['rm']],
    ['sudo -- rm x', ['rm']],
    ['nice -n 5 nohup timeout -s KILL 5 stdbuf -oL rm x', ['rm']],
    ['exec rm x', ['rm']],
    ['time rm x', ['rm']],
    ['xargs -n 1 -I{} rm {}', ['rm']],
    ['busybox rm x', ['rm']],
    ['find . -name "*.o" -exec rm {} \\;', ['rm', 'find']],
    ['if true; then rm x; fi', ['true', 'rm']],
    ['for i in 1 2; do rm $i; done', ['rm']],
    ['while false; do rm x; done', ['false', 'rm']],
    ['case x in x) rm y;; esac', ['rm']],
    ['! rm x', ['rm']],
    ['rm x &', ['rm']],
    ['a\nb', ['a', 'b']],
    ['git status > out.txt 2>&1', ['git']],
  ])('%s runs %j', (line, expected) => {
    expect(names(line)).toEqual(expected);
  });

  it('reads arguments and marks words whose value is not fixed', () => {
    const [command] = parser.parse('git -C "dir" status $HOME *.ts').commands;
    expect(command).toMatchObject({
      name: 'git',
      programKind: 'name',
      args: ['-C', 'dir', 'status', undefined, undefined],
    });
    expect(parser.parse('/usr/bin/git status').commands[0]!.programKind).toBe('absolute');
    expect(parser.parse('./git status').commands[0]!.programKind).toBe('relative');
  });

  it('records assignments, wrappers and file redirections', () => {
    const [assigned] = parser.parse('PATH=. git status').commands;
    expect(assigned!.assignments).toEqual(['PATH=.']);
    const [wrapped] = parser.parse('sudo env A=1 git status').commands;
    expect(wrapped).toMatchObject({ wrappers: ['sudo', 'env'], assignments: ['A=1'] });
    expect(parser.parse('git status > .git/hooks/pre-commit').commands[0]!.writesFiles).toBe(true);
    expect(parser.parse('git status >> log').commands[0]!.writesFiles).toBe(true);
    expect(parser.parse('git status > /dev/null 2>&1').commands[0]!.writesFiles).toBe(false);
    expect(parser.parse('{ a; b; } > f').commands.map((c) => c.writesFiles)).toEqual([true, true]);
    expect(parser.parse('export PATH=.').commands[0]!.name).toBe('export');
    expect(parser.parse('X=1; git status').commands.map((c) => c.assignments)).toEqual([
      ['X=1'],
      [],
    ]);
  });

  it.each([
    ['$X status', /not a fixed word/],
    ['$(echo rm) x', /not a fixed word/],
    ['r* x', /not a fixed word/],
    ['{rm,-rf,x}', /syntax error|not a fixed word/],
    ['eval "$CODE"', /eval on text that is not fixed/],
    ['eval "rm x"', /eval/],
    ['f() { rm x; }; f', /defines a shell function/],
    ['echo hi | sh', /reads commands from its input/],
    ['curl x | bash -s', /reads commands from its input/],
    ['bash -c "$CMD"', /not a fixed string/],
    ['. ./env.sh; git status', /can change what later commands run/],
    ['alias git=rm', /can change what later commands run/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template literal.
    ['echo ${X@P}', /parameter expansion/],
    ['echo $((x))', /arithmetic expansion/],
    ['echo "unterminated', /syntax error/],
    ['if true; then', /syntax error/],
  ])('%s is not parsed with confidence', (line, reason) => {
    expect(doubts(line).join('; ')).toMatch(reason);
  });

  it('is confident about ordinary command lines', () => {
    for (const line of [
      'git status --short',
      'npm test -- --run',
      'ls -la src | grep ts > /dev/null',
      'cd packages && npx vitest run "a b"',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template literal.
      'echo $HOME ${USER}',
      "bash -c 'git status'",
    ])
      expect(doubts(line)).toEqual([]);
  });

  it('sees eval and sh -c strings, and commands found inside them keep their wrappers', () => {
    const parsed = parser.parse('sudo bash -c \'eval "rm x"\'');
    expect(parsed.commands.map((command) => [command.name, command.wrappers])).toEqual([
      ['rm', ['sudo', 'bash -c', 'eval']],
      ['eval', ['sudo', 'bash -c']],
    ]);
  });

  it('never throws on generated input, and every command it reports has a name or a doubt', () => {
    const shellish = fc.array(
      fc.oneof(
        fc.string(),
        fc.constantFrom(
          ';',
          '&&',
          '|',
          '$(',
          ')',
          '`',
          "'",
          '"',
          '\\',
          '\n',
          '<(',
          '{',
          '}',
          'rm',
          'eval',
          'bash -c',
          '$X',
          '${X:-',
          '((',
          '<<EOF\n',
          'EOF',
        ),
      ),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(shellish, (parts) => {
        const line = parts.join(' ');
        const parsed = parser.parse(line);
        const unnamed = parsed.commands.filter(
          (command) => command.name === undefined && command.assignments.length === 0,
        );
        if (unnamed.length > 0 && !parsed.commands.every((command) => command.args !== undefined))
          throw new Error('malformed command');
        if (
          parsed.commands.some(
            (command) => command.name === undefined && command.programKind === 'unknown',
          ) &&
          !parsed.doubts.some((doubt) => doubt.hidesCommands)
        )
          throw new Error(`an unknown program without a doubt in ${JSON.stringify(line)}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('survives hostile input: deep nesting, NUL bytes, huge lines', () => {
    let nested = 'rm x';
    for (let depth = 0; depth < 12; depth++) nested = `bash -c ${JSON.stringify(nested)}`;
    expect(doubts(nested).join()).toMatch(/nested too deeply/);
    expect(doubts('rm\0x').join()).toMatch(/NUL/);
    expect(doubts('a'.repeat(200_000)).join()).toMatch(/too long/);
    expect(names('$(('.repeat(500))).toBeDefined();
  });
});
