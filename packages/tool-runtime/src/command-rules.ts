import type { JsonValue, ToolPermissions } from '@spine/protocol';
import picomatch from 'picomatch';
import { RE2 } from 're2-wasm';
import type { ApprovalRule } from './approval.js';
import type { ShellCommand, ShellCommandLine, ShellCommandParser } from './shell-command-parse.js';

/** What the rules decided for one call: run it, refuse it, or ask a person. */
export interface RuleOutcome {
  /** `ask` when a deny rule might apply but the command line could not be read with confidence. */
  decision: 'allow' | 'deny' | 'ask';
  /** The rule that decided, when one did. */
  rule?: ApprovalRule;
  /** Recorded in `tool/approval`. */
  reason: string;
}

/** The call as the rules see it. */
export interface RuleCall {
  /** Tool name. */
  toolName: string;
  /** Parsed arguments. */
  args: JsonValue;
  /** The tool's permissions: for a tool that executes, arguments are read as shell command lines. */
  permissions?: ToolPermissions;
}

type Match = 'yes' | 'no' | 'maybe';

/** Wrappers that change neither who runs the program nor what it receives. */
const TRANSPARENT = new Set([
  'command',
  'builtin',
  'exec',
  'nice',
  'nohup',
  'setsid',
  'time',
  'timeout',
  'stdbuf',
  'ionice',
  'taskset',
  'env',
  'sh -c',
  'bash -c',
  'dash -c',
]);
const SYSTEM_DIRS = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$/;
const SHELL_CONTROL = /[;&|`$<>\n\r()]/;

/**
 * Applies approval rules to a call. For a tool that executes (`permissions.executes`), `prefix`
 * and `pattern` are matched against every command the command line runs, found by parsing it
 * (pipelines, lists, subshells, substitutions, `sh -c` strings, wrappers such as `sudo`, `env`,
 * `command`, `xargs` removed): a deny rule that matches any of them denies; an allow rule allows
 * only when every command is matched by an allow rule, the parse is confident and no command has
 * assignments, file redirections, a path outside the system directories or a wrapper that changes
 * what runs. When the parse is not confident and a deny rule might apply, the outcome is `ask`.
 * Without `parser`, command lines count as unparsed (nothing is allowed by an argument rule).
 */
export function evaluateApprovalRules(
  rules: readonly ApprovalRule[],
  call: RuleCall,
  parser: ShellCommandParser | undefined,
): RuleOutcome | undefined {
  const shell = call.permissions?.executes === true;
  const lines = new Map<string, ShellCommandLine>();
  const lineOf = (text: string): ShellCommandLine => {
    let line = lines.get(text);
    if (!line) {
      line = parser
        ? parser.parse(text)
        : {
            commands: [],
            doubts: [{ reason: 'the shell parser is not loaded', hidesCommands: true }],
          };
      lines.set(text, line);
    }
    return line;
  };
  let unsure: string | undefined;
  for (const rule of rules) {
    if (rule.decision !== 'deny' || !picomatch.isMatch(call.toolName, rule.tool)) continue;
    const value = argumentOf(rule, call.args);
    if (value === 'no-argument') return denied(rule);
    if (value === undefined) continue;
    if (!shell) {
      if (textMatches(rule, value)) return denied(rule);
      continue;
    }
    const line = lineOf(value);
    let match: Match = line.commands.reduce<Match>(
      (best, command) => (best === 'yes' ? best : worst(best, commandMatches(rule, command))),
      'no',
    );
    if (match !== 'yes' && rule.pattern !== undefined && patternOf(rule).test(value)) match = 'yes';
    if (match === 'yes') return denied(rule);
    const hidden = line.doubts.find((doubt) => doubt.hidesCommands);
    if (match === 'maybe')
      unsure ??= `a deny rule (${describe(rule)}) might match ${JSON.stringify(value.slice(0, 80))}`;
    else if (hidden)
      unsure ??= `the command cannot be checked against the deny rule (${describe(rule)}): ${hidden.reason}`;
  }
  if (unsure) return { decision: 'ask', reason: unsure };
  for (const rule of rules) {
    if (rule.decision !== 'allow' || !picomatch.isMatch(call.toolName, rule.tool)) continue;
    const value = argumentOf(rule, call.args);
    if (value === 'no-argument') return allowed(rule);
    if (value === undefined || shell) continue;
    if (
      textMatches(rule, value) &&
      !(rule.prefix !== undefined && SHELL_CONTROL.test(value.trim().slice(rule.prefix.length)))
    )
      return allowed(rule);
  }
  if (!shell) return undefined;
  return allowEveryCommand(rules, call, lineOf);
}

/** An allow outcome when every command of every argument some allow rule names is allowed. */
function allowEveryCommand(
  rules: readonly ApprovalRule[],
  call: RuleCall,
  lineOf: (text: string) => ShellCommandLine,
): RuleOutcome | undefined {
  const candidates = rules.filter(
    (rule) =>
      rule.decision === 'allow' &&
      rule.argument !== undefined &&
      picomatch.isMatch(call.toolName, rule.tool),
  );
  const byArgument = new Map<string, ApprovalRule[]>();
  for (const rule of candidates)
    byArgument.set(rule.argument!, [...(byArgument.get(rule.argument!) ?? []), rule]);
  for (const [argument, group] of byArgument) {
    const value = argumentOf(group[0]!, call.args);
    if (typeof value !== 'string') continue;
    const line = lineOf(value);
    if (line.doubts.length > 0 || line.commands.length === 0) continue;
    const used: ApprovalRule[] = [];
    const all = line.commands.every((command) => {
      if (!allowable(command)) return false;
      const rule = group.find((candidate) => commandMatches(candidate, command) === 'yes');
      if (rule && !used.includes(rule)) used.push(rule);
      return rule !== undefined;
    });
    if (all)
      return {
        decision: 'allow',
        rule: used[0]!,
        reason:
          used.length === 1 && used[0]!.reason
            ? used[0]!.reason
            : `every command in ${argument} is allowed by a rule (${used.map(describe).join('; ')})`,
      };
  }
  return undefined;
}

/** Whether an allow rule may approve this command at all. */
function allowable(command: ShellCommand): boolean {
  if (command.name === undefined || command.assignments.length > 0 || command.writesFiles)
    return false;
  if (command.programKind === 'relative' || command.programKind === 'unknown') return false;
  if (command.programKind === 'absolute' && !SYSTEM_DIRS.test(command.program ?? '')) return false;
  return command.wrappers.every((wrapper) => TRANSPARENT.has(wrapper));
}

/** Whether a rule's `prefix` and `pattern` match one parsed command. */
function commandMatches(rule: ApprovalRule, command: ShellCommand): Match {
  if (rule.prefix === undefined && rule.pattern === undefined) return 'yes';
  let result: Match = 'yes';
  if (rule.prefix !== undefined) {
    const wanted = rule.prefix.trim().split(/\s+/);
    const first = wanted[0]?.split('/').pop();
    if (command.name === undefined) result = 'maybe';
    else if (first !== command.name) return 'no';
    const words = command.args;
    for (let index = 1; index < wanted.length; index++) {
      if (index - 1 >= words.length) return 'no';
      const word = words[index - 1];
      if (word === undefined) result = 'maybe';
      else if (word !== wanted[index]) return 'no';
    }
  }
  if (rule.pattern !== undefined) {
    const text = [command.name ?? '?', ...command.args.map((word) => word ?? '?')].join(' ');
    if (!patternOf(rule).test(text)) {
      if (command.name !== undefined && command.args.every((word) => word !== undefined))
        return 'no';
      result = 'maybe';
    }
  }
  return result;
}

function worst(a: Match, b: Match): Match {
  if (a === 'yes' || b === 'yes') return 'yes';
  return a === 'maybe' || b === 'maybe' ? 'maybe' : 'no';
}

/** The rule's argument as a string; `no-argument` for a rule on the tool alone. */
function argumentOf(rule: ApprovalRule, args: JsonValue): string | undefined | 'no-argument' {
  if (rule.argument === undefined)
    return rule.prefix === undefined && rule.pattern === undefined ? 'no-argument' : undefined;
  const value =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? args[rule.argument]
      : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Plain-text matching for tools that do not execute: prefix at a word boundary, and pattern. */
function textMatches(rule: ApprovalRule, value: string): boolean {
  if (rule.prefix !== undefined) {
    const trimmed = value.trim();
    if (trimmed !== rule.prefix && !trimmed.startsWith(`${rule.prefix} `)) return false;
  }
  return rule.pattern === undefined || patternOf(rule).test(value);
}

/** What a rule's pattern is tested with: a RegExp given in code, or RE2 for a string. */
interface Tester {
  test(text: string): boolean;
  readonly source: string;
}

const compiled = new WeakMap<ApprovalRule, Tester>();

/**
 * The rule's pattern. A string (typically from configuration) compiles with RE2, whose matching
 * time is linear, so a pattern such as `(a+)+$` cannot freeze the process on a command line the
 * model wrote; a `RegExp` object is used as given (without `g`/`y`, which would keep state).
 *
 * @throws an {@link Error} when a string pattern is not valid RE2 syntax.
 */
function patternOf(rule: ApprovalRule): Tester {
  let tester = compiled.get(rule);
  if (tester) return tester;
  const pattern = rule.pattern!;
  if (typeof pattern === 'string') {
    try {
      tester = new RE2(pattern, 'u');
    } catch (error) {
      throw new Error(
        `the pattern ${JSON.stringify(pattern)} of a rule for ${rule.tool} is not valid RE2 syntax (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  } else
    tester =
      pattern.global || pattern.sticky
        ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''))
        : pattern;
  compiled.set(rule, tester);
  return tester;
}

function describe(rule: ApprovalRule): string {
  const what =
    rule.prefix !== undefined
      ? ` ${rule.prefix}`
      : rule.pattern !== undefined
        ? ` /${patternOf(rule).source}/`
        : '';
  return `${rule.decision} ${rule.tool}${what}`;
}

function denied(rule: ApprovalRule): RuleOutcome {
  return { decision: 'deny', rule, reason: rule.reason ?? `denied by a rule for ${rule.tool}` };
}

function allowed(rule: ApprovalRule): RuleOutcome {
  return { decision: 'allow', rule, reason: rule.reason ?? `allowed by a rule for ${rule.tool}` };
}
