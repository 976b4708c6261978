import {
  type AgentSession,
  currentSessionTitle,
  enterPlanMode,
  leavePlanMode,
  personTitle,
  preview,
  recordSessionTitle,
  resolveModel,
  storeFor,
} from '@spine/harness';
import type { ApprovalPolicyName } from '@spine/tool-runtime';
import { contextReport, formatBytes, formatCost, type Style } from '@spine/tui';
import { titleFork } from './fork-title.js';
import { jobCommand } from './job-commands.js';

/** What a slash command asks the REPL to do next. */
export type SlashOutcome =
  | { kind: 'done' }
  | { kind: 'quit' }
  | { kind: 'switch'; sessionId: string; note: string }
  | { kind: 'toggle-reasoning' }
  | { kind: 'watch'; child?: number }
  | { kind: 'send'; text: string }
  | { kind: 'title'; title: string }
  | { kind: 'transcript' };

/** The slash commands, with their one-line help. */
export const SLASH_COMMANDS: Readonly<Record<string, string>> = {
  '/compact': '[focus] fold old history into a checkpoint now',
  '/context': 'what the model sees now, with token counts',
  '/model': '[provider/model] show or switch the model',
  '/sandbox': '[read-only|workspace-write|danger-full-access] show or set isolation',
  '/approval': '[ask|auto-edit|never-ask|deny-all] show or set the approval policy',
  '/plan': 'plan mode: the agent reads, searches and fetches only, and proposes a plan',
  '/implement': 'leave plan mode for the policy before it, to carry out the plan',
  '/title': '[text] show or set the title of this session',
  '/transcript': 'browse the whole session in a pager (q returns; needs a terminal)',
  '/sessions': 'recent sessions',
  '/resume': '<id> continue another session',
  '/fork': '[seq] fork this session (at seq, default: now) and continue in the fork',
  '/rewind': '[turn|turn.step] list turns that changed files, or put the workspace back to one',
  '/undo': 'put the workspace back to before the last turn that changed files',
  '/cost': 'tokens and cost so far',
  '/memory': 'the memory files and their facts (edits apply next session)',
  '/agents': '[watch [n]] subagent profiles; watch expands subagent #n live, alone collapses',
  '/reasoning': "show or collapse the model's reasoning",
  '/jobs': 'background jobs: id, state, output size, command',
  '/kill': '<id> stop a background job and everything it started',
  '/mcp': 'MCP servers: state, tools, problems; prompts run as /mcp__<server>__<prompt>',
  '/help': 'this list',
  '/quit': 'end the session (so do `exit`, `quit` and Ctrl-D)',
};

const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const APPROVALS = ['ask', 'auto-edit', 'never-ask', 'deny-all'] as const;

/** Runs one slash command line against the active session; prints to `out`. */
export async function runSlashCommand(
  line: string,
  active: AgentSession,
  context: { out: NodeJS.WritableStream; style: Style },
): Promise<SlashOutcome> {
  const { out, style } = context;
  const [name = '', ...rest] = line.trim().split(/\s+/);
  const argument = rest.join(' ');
  const print = (text: string): void => {
    out.write(`${text}\n`);
  };
  switch (name) {
    case '/help':
      for (const [command, help] of Object.entries(SLASH_COMMANDS))
        print(`  ${command.padEnd(10)} ${help}`);
      print(
        '  @path      reference a workspace file (Tab completes); the agent reads it with its tools',
      );
      print('  Ctrl-C     cancel the running turn; twice to exit');
      print('  Ctrl-D     end the session once the running turn ends (like exit, quit, /quit)');
      return { kind: 'done' };
    case '/quit':
    case '/exit':
      return { kind: 'quit' };
    case '/cost': {
      // Totals include the subagents' usage, like the status line.
      const { sessionTotals, usageWithChildren } = await import('@spine/harness');
      const usage = usageWithChildren(active.agent.usage, sessionTotals(active.session));
      print(
        `input ${usage.inputTokens} · cache hit ${usage.cacheReadTokens} · cache write ${usage.cacheWriteTokens} · output ${usage.outputTokens} · cost ${formatCost(usage.costUsd ?? 0)}`,
      );
      return { kind: 'done' };
    }
    case '/reasoning':
      return { kind: 'toggle-reasoning' };
    case '/agents':
      if (rest[0] === 'watch') {
        const child = rest[1] === undefined ? undefined : Number(rest[1]);
        if (child === undefined || (Number.isInteger(child) && child > 0))
          return { kind: 'watch', ...(child ? { child } : {}) };
        print(
          style.red(
            'usage: /agents watch <n> (the number in [explore #n]); /agents watch collapses',
          ),
        );
        return { kind: 'done' };
      }
      print(
        await (await import('@spine/harness')).describeProfiles(active.session.header.cwd ?? '.'),
      );
      return { kind: 'done' };
    case '/memory': {
      if (!active.memory) {
        print('memory is off (memory.enabled is false): no memory section, no remember tool');
        return { kind: 'done' };
      }
      const { formatMemoryReport, memoryReport } = await import('@spine/harness');
      out.write(formatMemoryReport(memoryReport(active.memory.files, true)));
      return { kind: 'done' };
    }
    case '/context':
      print(contextReport(active));
      return { kind: 'done' };
    case '/compact': {
      const outcome = await active.agent.compact(argument ? { focus: argument } : {});
      const figures =
        outcome.tokensBefore === undefined
          ? ''
          : ` (${outcome.tokensBefore} → ${outcome.tokensAfter ?? '?'} tokens)`;
      print(
        `compaction ${outcome.status}${figures}${outcome.message ? `: ${outcome.message}` : ''}`,
      );
      return { kind: 'done' };
    }
    case '/model': {
      if (!argument) {
        print(
          `model ${active.model.provider}/${active.model.modelId}, window ${active.model.contextWindow}`,
        );
        return { kind: 'done' };
      }
      const previous = `${active.model.provider}/${active.model.modelId}`;
      const model = await resolveModel({ ...active.config, model: argument });
      active.agent.setModel(model.client, model.modelId, model.contextWindow);
      Object.assign(active.model, model);
      // Recorded like an editor's change over ACP, so the log says which model came next.
      const value = `${model.provider}/${model.modelId}`;
      if (value !== previous)
        active.session.append('session/config', { option: 'model', value, previous, by: 'person' });
      print(`model switched to ${argument} (the provider's prompt cache starts over)`);
      return { kind: 'done' };
    }
    case '/sandbox': {
      if (!argument)
        print(
          `sandbox ${active.runtime.sandbox} (backend ${active.runtime.sandboxBackend().name})`,
        );
      else if (!(SANDBOXES as readonly string[]).includes(argument))
        print(style.red(`unknown sandbox mode; use ${SANDBOXES.join(', ')}`));
      else {
        active.runtime.setSandbox(argument as (typeof SANDBOXES)[number]);
        print(`sandbox set to ${argument}`);
      }
      return { kind: 'done' };
    }
    case '/jobs':
    case '/kill':
      await jobCommand(name, argument, active, { print, style });
      return { kind: 'done' };
    case '/plan':
    case '/implement':
      return planCommand(name, active, { print, style });
    case '/approval': {
      if (!argument) print(`approval policy ${active.approval} (one of ${APPROVALS.join(', ')})`);
      else if (argument === 'plan' || active.approval === 'plan')
        print(style.yellow('plan mode is switched with /plan and left with /implement'));
      else if (!(APPROVALS as readonly string[]).includes(argument))
        print(style.red(`unknown approval policy; use ${APPROVALS.join(', ')}`));
      else {
        const previous = active.approval;
        active.runtime.setApproval(argument as ApprovalPolicyName);
        active.approval = argument as ApprovalPolicyName;
        if (argument !== previous)
          active.session.append('session/config', {
            option: 'approval',
            value: argument,
            previous,
            by: 'person',
          });
        print(`approval policy set to ${argument}`);
      }
      return { kind: 'done' };
    }
    case '/title': {
      const title = personTitle(argument);
      if (!title) {
        const current = currentSessionTitle(active.config.sessionDir, active.session);
        print(
          current ? `title: ${preview(current, 120)}` : 'no title yet (/title <text> sets one)',
        );
        return { kind: 'done' };
      }
      recordSessionTitle(active.session, active.config.sessionDir, title, 'person');
      print(`title set to ${preview(title, 120)}`);
      return { kind: 'title', title };
    }
    case '/sessions': {
      const summaries = await storeFor(active.config).list({ limit: 10 });
      for (const summary of summaries) {
        const mark = summary.id === active.session.id ? '*' : ' ';
        print(
          `${mark} ${summary.id.padEnd(26)} ${(summary.updatedAt ?? '').slice(0, 16).replace('T', ' ')} ${formatBytes(summary.sizeBytes).padStart(9)}  ${preview(currentSessionTitle(active.config.sessionDir, summary) ?? '', 50)}`,
        );
      }
      return { kind: 'done' };
    }
    case '/transcript':
      return { kind: 'transcript' };
    case '/resume':
      if (!argument) {
        print(style.red('usage: /resume <id> (see /sessions)'));
        return { kind: 'done' };
      }
      return { kind: 'switch', sessionId: argument, note: `resumed ${argument}` };
    case '/fork': {
      const at = argument ? Number(argument) : active.session.lastSeq;
      if (!Number.isInteger(at) || at < 1 || at > active.session.lastSeq) {
        print(style.red(`usage: /fork [seq], seq between 1 and ${active.session.lastSeq}`));
        return { kind: 'done' };
      }
      await active.session.flush();
      const { newSessionId } = await import('@spine/harness');
      const fork = await active.session.fork(at, { id: newSessionId() });
      // The fork carries the title the session has now.
      titleFork(fork, active.session, active.config.sessionDir);
      const id = fork.id;
      await fork.close();
      return {
        kind: 'switch',
        sessionId: id,
        note: `forked ${active.session.id} at seq ${at} into ${id}`,
      };
    }
    case '/rewind':
    case '/undo': {
      const rewound = await (await import('../rewind/slash.js')).runRewindSlash(
        name,
        argument,
        active,
        { print, style },
      );
      return rewound
        ? { kind: 'switch', sessionId: rewound.switchTo, note: rewound.note }
        : { kind: 'done' };
    }
    default:
      if (name === '/mcp' || name.startsWith('/mcp__'))
        return (await import('../mcp/slash.js')).runMcpSlash(name, argument, active, {
          print,
          style,
        });
      print(style.red(`unknown command ${name}; /help lists them`));
      return { kind: 'done' };
  }
}

/** Completes slash command names. */
export function completeSlash(line: string): string[] {
  return Object.keys(SLASH_COMMANDS).filter((command) => command.startsWith(line));
}

/** `/plan` enters plan mode, `/implement` leaves it; both are recorded as `plan/mode`. */
function planCommand(
  name: string,
  active: AgentSession,
  context: { print: (text: string) => void; style: Style },
): SlashOutcome {
  const { print, style } = context;
  const target = { session: active.session, runtime: active.runtime, prompt: active.prompt };
  if (name === '/plan') {
    if (!enterPlanMode(target, active.approval)) print('plan mode is already on');
    else {
      print(
        style.cyan(
          `plan mode: reads, searches and fetches only; writes and commands are refused (was ${active.approval}). /implement to carry out the plan`,
        ),
      );
      active.approval = 'plan';
    }
    return { kind: 'done' };
  }
  const left = leavePlanMode(target, active.approval, 'ask');
  if (!left) print('plan mode is not on (/plan starts it)');
  else {
    active.approval = left.approval as ApprovalPolicyName;
    print(style.cyan(`plan mode off: approval policy ${left.approval}; carry out the plan`));
  }
  return { kind: 'done' };
}
