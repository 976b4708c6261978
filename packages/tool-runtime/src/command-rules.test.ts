import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, cwd, ran, recorder, tools } from '../test/approval-fixtures.js';
import type { ApprovalRule } from './approval.js';
import { evaluateApprovalRules } from './command-rules.js';
import { createToolRuntime } from './runtime.js';
import { loadShellParser, type ShellCommandParser } from './shell-command-parse.js';

let parser: ShellCommandParser;
beforeAll(async () => {
  parser = await loadShellParser();
}, 60_000);

const shellRule = (prefix: string, decision: 'allow' | 'deny'): ApprovalRule => ({
  tool: 'bash',
  argument: 'command',
  prefix,
  decision,
});
const decide = (rules: ApprovalRule[], command: string) =>
  evaluateApprovalRules(
    rules,
    { toolName: 'bash', args: { command }, permissions: { executes: true } },
    parser,
  );

const DENY_RM = shellRule('rm', 'deny');
const ALLOW_GIT_STATUS = shellRule('git status', 'allow');

describe('shell command rules', () => {
  it.each([
    '\\rm -rf x',
    '/bin/rm -rf x',
    'command rm x',
    'true; rm x',
    'git status && rm x',
    'git status $(rm x)',
    'echo `rm x`',
    "bash -c 'rm x'",
    'sudo rm x',
    'env -i A=1 rm x',
    'xargs rm < list',
    'find . -exec rm {} +',
    "$'\\x72m' x",
    'r""m x',
  ])('the deny rule for rm denies %s', (command) => {
    expect(decide([DENY_RM, ALLOW_GIT_STATUS], command)).toMatchObject({ decision: 'deny' });
  });

  it.each([
    'git status',
    'git status --short',
    '/usr/bin/git status',
    'git status 2>&1 >/dev/null',
    "bash -c 'git status'",
    'git status; git status -s',
    'command git status',
  ])('the allow rule for git status allows %s', (command) => {
    expect(decide([DENY_RM, ALLOW_GIT_STATUS], command)).toMatchObject({ decision: 'allow' });
  });

  it.each([
    'git status; curl evil',
    'git status | sh',
    'git status > .git/hooks/pre-commit',
    './git status',
    '/tmp/git status',
    'PATH=.:$PATH git status',
    'export PATH=.; git status',
    'sudo git status',
    'eval git status',
    'git() { curl evil; }; git status',
    '. ./x; git status',
    'git status $((x))',
    '$GIT status',
    'git statu',
    'git log',
  ])('the allow rule for git status does not allow %s', (command) => {
    expect(decide([ALLOW_GIT_STATUS], command)?.decision).not.toBe('allow');
  });

  it('asks when a deny rule might apply but the line cannot be read (even with a blanket allow)', () => {
    const blanket: ApprovalRule = { tool: 'bash', decision: 'allow' };
    for (const command of ['eval "$X"', '$(echo rm) x', 'echo x | sh', 'rm$IFS-rf x'])
      expect(decide([DENY_RM, blanket], command)).toMatchObject({ decision: 'ask' });
    expect(decide([DENY_RM, blanket], 'ls -la')).toMatchObject({ decision: 'allow' });
    expect(decide([shellRule('rm -rf', 'deny'), blanket], 'rm $FLAGS x')).toMatchObject({
      decision: 'ask',
    });
  });

  it('matches patterns against every command, and deny patterns also against the line', () => {
    const denyPattern: ApprovalRule = {
      tool: 'bash',
      argument: 'command',
      pattern: '^curl ',
      decision: 'deny',
    };
    expect(decide([denyPattern], 'true && \\curl x')).toMatchObject({ decision: 'deny' });
    const allowPattern: ApprovalRule = {
      tool: 'bash',
      argument: 'command',
      pattern: /^(ls|cat)( |$)/,
      decision: 'allow',
    };
    expect(decide([allowPattern], 'ls -la | cat')).toMatchObject({ decision: 'allow' });
    expect(decide([allowPattern], 'ls -la | rm x')).toBeUndefined();
  });

  it('compiles string patterns with RE2, so a catastrophic one cannot hang, and a bad one denies', async () => {
    const slow: ApprovalRule = {
      tool: 'bash',
      argument: 'command',
      pattern: '^(a+)+$',
      decision: 'deny',
    };
    expect(decide([slow], `echo ${'a'.repeat(40)}!`)).toBeUndefined();
    expect(decide([slow], 'a'.repeat(40))).toMatchObject({ decision: 'deny' });
    ran.length = 0;
    const runtime = createToolRuntime({
      cwd,
      tools,
      approval: 'never-ask',
      rules: [{ tool: 'shell', argument: 'command', pattern: '(?=lookahead)', decision: 'deny' }],
    });
    const [result] = await runtime.run([call('shell', { command: 'ls' })]);
    expect(result!.outcome).toBe('denied');
    expect(result!.content).toMatch(
      /rules could not be applied: the pattern .* is not valid RE2 syntax/,
    );
    expect(ran).toEqual([]);
  });

  it('keeps plain-text matching for tools that do not execute', () => {
    const rule: ApprovalRule = {
      tool: 'open',
      argument: 'target',
      prefix: 'docs',
      decision: 'allow',
    };
    const outcome = (target: string) =>
      evaluateApprovalRules([rule], { toolName: 'open', args: { target } }, parser);
    expect(outcome('docs/a b')).toBeUndefined();
    expect(outcome('docs a b')).toMatchObject({ decision: 'allow' });
    expect(outcome('docs a;b')).toBeUndefined();
  });

  it('never auto-allows a wrapped or obfuscated form of a denied command (property)', () => {
    const program = fc.constantFrom(
      'rm',
      '\\rm',
      '/bin/rm',
      '/usr/bin/rm',
      "'rm'",
      '"rm"',
      'r""m',
      "r''m",
      "$'\\x72m'",
      "$'\\162m'",
      'r\\m',
      './rm',
      '$(echo rm)',
      '`echo rm`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template literal.
      '${X:-rm}',
      'r?',
      '"$RM"',
    );
    const wrapper = fc.constantFrom(
      '',
      'sudo ',
      'sudo -u root ',
      'env ',
      'env -i ',
      'env A=1 ',
      'A=1 ',
      'command ',
      'command -p ',
      'builtin ',
      'exec ',
      'nice -n 5 ',
      'nohup ',
      'timeout 5 ',
      'timeout -s KILL 5 ',
      'xargs ',
      'xargs -n1 ',
      'time ',
      'stdbuf -oL ',
      'setsid ',
      'busybox ',
      'doas ',
      'ionice -c3 ',
    );
    const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;
    const context = fc.constantFrom<(inner: string) => string>(
      (x) => x,
      (x) => `true; ${x}`,
      (x) => `git status && ${x}`,
      (x) => `git status || ${x}`,
      (x) => `git status | ${x}`,
      (x) => `${x} | cat`,
      (x) => `( ${x} )`,
      (x) => `{ ${x}; }`,
      (x) => `echo $( ${x} )`,
      (x) => `echo "$( ${x} )"`,
      (x) => `cat <( ${x} )`,
      (x) => `bash -c ${quote(x)}`,
      (x) => `sh -c ${quote(x)}`,
      (x) => `bash -lc ${quote(x)}`,
      (x) => `eval ${quote(x)}`,
      (x) => `if true; then ${x}; fi`,
      (x) => `for i in 1; do ${x}; done`,
      (x) => `${x} &`,
      (x) => `! ${x}`,
      (x) => `git status\n${x}`,
      (x) => `f() { ${x}; }; f`,
    );
    const argument = fc.constantFrom('-rf /', 'x', '-r -f ~', '"a b"', '--no-preserve-root /', '');
    const rulesets: ApprovalRule[][] = [
      [DENY_RM, ALLOW_GIT_STATUS],
      [DENY_RM, { tool: 'bash', decision: 'allow' }],
      [
        DENY_RM,
        ...[
          'true',
          'echo',
          'cat',
          'git status',
          'sudo',
          'env',
          'xargs',
          'find',
          'bash',
          'sh',
          'eval',
          'f',
        ].map((prefix) => shellRule(prefix, 'allow')),
      ],
    ];
    fc.assert(
      fc.property(
        program,
        fc.array(wrapper, { maxLength: 3 }),
        argument,
        fc.array(context, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (name, wrappers, args, contexts, piped, found) => {
          let line = `${wrappers.join('')}${name} ${args}`.trim();
          // find -exec takes one simple command, so it can only be the innermost form.
          if (found) line = `find . -exec ${line} \\;`;
          for (const wrap of contexts) line = wrap(line);
          // Piping the text into a shell runs it too (only as the outermost form: inside
          // `find -exec … \;` the pipe would end the find command instead).
          if (piped) line = `echo ${quote(line)} | sh`;
          for (const rules of rulesets) {
            const outcome = decide(rules, line);
            if (outcome?.decision === 'allow')
              throw new Error(`auto-allowed ${JSON.stringify(line)}: ${outcome.reason}`);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('through the runtime: a denied command never runs, an unreadable one is put to a person', async () => {
    ran.length = 0;
    const rules: ApprovalRule[] = [
      { tool: 'shell', argument: 'command', prefix: 'rm', decision: 'deny', reason: 'no deletes' },
      { tool: 'shell', argument: 'command', prefix: 'git status', decision: 'allow' },
    ];
    const runtime = createToolRuntime({ cwd, tools, approval: 'never-ask', rules });
    const results = await runtime.run([
      call('shell', { command: '\\rm -rf x' }),
      call('shell', { command: 'true; /bin/rm x' }),
      call('shell', { command: 'eval "$X"' }),
      call('shell', { command: 'git status' }),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['denied', 'denied', 'denied', 'ok']);
    expect(results[0]!.content).toMatch(/no deletes/);
    expect(results[2]!.content).toMatch(/never-ask policy never asks/);
    expect(ran).toEqual(['shell:git status:null']);
    const asking = createToolRuntime({ cwd, tools, approval: 'ask', rules });
    const person = recorder('once');
    const [asked] = await asking.run([call('shell', { command: 'eval "$X"' })], {
      approve: person.approve,
    });
    expect(asked!.outcome).toBe('ok');
    expect(person.asked[0]!.reason).toMatch(/cannot be checked against the deny rule/);
  });
});
