import type { TurnResult } from '@spine/agent-loop';
import type { SessionEvent } from '@spine/protocol';
import { type AgentSession, exitCodeForTurn, startAgentSession } from '../agent-session.js';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { UsageError } from '../errors.js';
import { createLineApprover } from '../interactive/approval.js';
import { attachLiveOutput, describeTurnEnd } from '../present/live.js';
import { styleFor } from '../present/style.js';
import { readLastRequestModel, readStoredHeader } from '../store.js';

/**
 * `spine run [options] "task"`: one task, no questions asked (an `ask` approval is denied
 * unless stdin is a terminal). `--json` streams the session events as NDJSON.
 */
export async function runCommand(task: string[], flags: AgentFlags): Promise<number> {
  const text = task.join(' ').trim();
  if (!text)
    throw new UsageError({ message: 'spine run needs a task: spine run "fix the failing test"' });
  return runTask({ flags, task: text });
}

/** `spine resume <id> [task]`: continues an interrupted turn and queued input, then runs `task`. */
export async function resumeCommand(
  id: string,
  task: string[],
  flags: AgentFlags,
): Promise<number> {
  return runTask({ flags, task: task.join(' ').trim(), resumeId: id });
}

async function runTask(options: {
  flags: AgentFlags;
  task: string;
  resumeId?: string;
}): Promise<number> {
  const { flags } = options;
  const { loaded, cwd } = configForFlags(flags);
  // A resumed session keeps the model it last sent a request to (it may have been resumed on
  // another provider before), else the one it was created with, unless one is chosen explicitly.
  if (options.resumeId !== undefined && loaded.provenance.get('model')?.layer === 'default') {
    const dir = loaded.config.sessionDir;
    const recorded =
      readLastRequestModel(dir, options.resumeId) ?? readStoredHeader(dir, options.resumeId)?.model;
    if (recorded) loaded.config.model = recorded;
  }
  const style = styleFor(process.stderr);
  const json = Boolean(flags.json);
  const interactiveApproval = !json && Boolean(process.stdin.isTTY);
  const writeEvent = (event: SessionEvent): void => {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  };
  const approver = interactiveApproval
    ? createLineApprover({ input: process.stdin, output: process.stderr, style })
    : undefined;
  const started: AgentSession = await startAgentSession({
    config: loaded.config,
    cwd,
    ...(options.resumeId === undefined ? { title: options.task } : { resumeId: options.resumeId }),
    ...(approver ? { approve: approver.approve } : {}),
    ...(json ? { onEvent: writeEvent } : {}),
    onWarning: (message) => process.stderr.write(style.yellow(`warning: ${message}\n`)),
  });
  if (!json) {
    attachLiveOutput(started.agent, { text: process.stdout, notices: process.stderr }, style);
    process.stderr.write(
      style.dim(`session ${started.session.id} · ${loaded.config.model} · ${cwd}\n`),
    );
  }
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
    process.stderr.write(style.yellow('\ncancelling… (Ctrl-C again to exit now)\n'));
  };
  // SIGTERM (a supervisor stopping us) aborts the same way, so the log is closed cleanly.
  const onSigterm = (): void => controller.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  let result: TurnResult | undefined;
  try {
    if (options.resumeId !== undefined) {
      result = await started.agent.resume({ signal: controller.signal });
      if (result && !json)
        process.stderr.write(
          style.dim(`resumed turn ${result.turn}: ${describeTurnEnd(result)}\n`),
        );
    }
    if (options.task && (!result || result.reason === 'completed') && !controller.signal.aborted) {
      result = await started.agent.run(options.task, { signal: controller.signal });
    } else if (options.resumeId !== undefined && !result && !options.task) {
      if (!json)
        process.stderr.write(
          'nothing to resume: the session has no interrupted turn or queued input; pass a task\n',
        );
    }
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    approver?.close();
    await started.finish(result?.reason ?? 'completed');
  }
  if (result && !json) {
    const usage = started.agent.usage;
    const cost = usage.costUsd === undefined ? '' : ` · $${usage.costUsd.toFixed(4)}`;
    process.stderr.write(
      style.dim(`${describeTurnEnd(result)} · session ${started.session.id}${cost}\n`),
    );
    if (result.deniedTools.length && !interactiveApproval && loaded.config.approval === 'ask') {
      process.stderr.write(
        style.dim(
          'nobody could be asked: pass --approval auto-edit or never-ask for unattended runs\n',
        ),
      );
    }
  }
  return exitCodeForTurn(result);
}
