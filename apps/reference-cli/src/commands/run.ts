import type { TurnResult } from '@spine/agent-loop';
import {
  type AgentSession,
  deriveSessionTitle,
  recordSessionTitle,
  resolveModel,
  SessionNotFoundError,
  startAgentSession,
  storeFor,
  storeImage,
  storeUrlOf,
  UsageError,
} from '@spine/harness';
import { type SessionEvent, type SessionStore, visibleJson } from '@spine/protocol';
import { readJsonlHeader, readLastJsonlEvent } from '@spine/session-log';
import { attachLiveOutput, createKeyApprover, describeTurnEnd, styleFor } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { isClosed } from '../closed-output.js';
import { EXIT_CODES } from '../exit-codes.js';
import { approvalDetailFor, networkText } from '../interactive/approval-preview.js';
import { terminalHighlighter } from '../interactive/code-highlight.js';
import { adviceFor, exitCodeForTurn, noteSession, reportError } from '../report-error.js';
import { assertImagesAccepted, taskImages } from './run-images.js';

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
  // An unknown session is named before a missing key: the id is what the person got wrong.
  if (options.resumeId !== undefined && !(await storeFor(loaded.config).exists(options.resumeId)))
    throw new SessionNotFoundError({ sessionId: options.resumeId, dir: loaded.config.sessionDir });
  if (options.resumeId !== undefined && loaded.provenance.get('model')?.layer === 'default') {
    const recorded = storeUrlOf(loaded.config)
      ? await recordedModelInStore(storeFor(loaded.config), options.resumeId)
      : recordedModelInFiles(loaded.config.sessionDir, options.resumeId);
    if (recorded) loaded.config.model = recorded;
  }
  // Images are read, checked and matched with the model before a session exists.
  const imageFiles = taskImages(options.task, flags.image, {
    cwd,
    exclude: loaded.config.tools.exclude,
  });
  const model = await resolveModel(loaded.config, { requireKey: true });
  assertImagesAccepted(model, loaded.config, imageFiles);
  const style = styleFor(process.stderr);
  const json = Boolean(flags.json);
  const interactiveApproval = !json && Boolean(process.stdin.isTTY);
  // A reader that went away (`| head -1`) stops the output, not the task: the log is the record.
  const writeEvent = (event: SessionEvent): void => {
    // The same JSON, with C1 controls and bidi marks (which JSON.stringify leaves raw) escaped.
    if (!isClosed(process.stdout)) process.stdout.write(`${visibleJson(JSON.stringify(event))}\n`);
  };
  const approver = interactiveApproval
    ? createKeyApprover({
        input: process.stdin,
        output: process.stderr,
        style,
        detail: approvalDetailFor(
          cwd,
          () => process.stderr.columns,
          () => ({
            sandbox: loaded.config.sandbox,
            network: networkText(loaded.config.shell.network),
          }),
        ),
      })
    : undefined;
  const started: AgentSession = await startAgentSession({
    config: loaded.config,
    cwd,
    model,
    ...(options.resumeId === undefined ? { title: options.task } : { resumeId: options.resumeId }),
    ...(approver ? { approve: approver.approve } : {}),
    // Only an explicit `--approval` takes a resumed session out of plan mode.
    approvalChosen: loaded.provenance.get('approval')?.layer === 'flag',
    ...(json ? { onEvent: writeEvent } : {}),
    onWarning: (message) => process.stderr.write(style.yellow(`warning: ${message}\n`)),
  });
  noteSession(started.session.id, loaded.config.sessionDir);
  // The task titles a new session at once, recorded like a REPL session's first request.
  if (options.resumeId === undefined)
    recordSessionTitle(
      started.session,
      loaded.config.sessionDir,
      deriveSessionTitle(options.task),
      'auto',
    );
  if (!json) {
    // On a terminal the answer is rendered as Markdown, and the text of an attempt that broke
    // off is marked as discarded; piped, it stays the text as written, and each attempt's text
    // is held until the attempt completes, so a script reads only the answer that was kept.
    const highlight = await terminalHighlighter(process.stdout);
    const markdown = process.stdout.isTTY
      ? {
          markdown: {
            width: () => process.stdout.columns || 80,
            hyperlinks: true,
            ...(highlight ? { highlight } : {}),
          },
        }
      : { holdAttempts: true };
    attachLiveOutput(
      started.agent,
      { text: process.stdout, notices: process.stderr },
      style,
      markdown,
    );
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
  // SIGTERM (a supervisor stopping us) and SIGHUP (the terminal went away) abort the same way,
  // so the turn ends with `turn/end` and the session can be resumed. SIGPIPE is ignored by
  // Node; a closed pipe surfaces as EPIPE, which only stops the output.
  const onSigterm = (): void => controller.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSigterm);
  let result: TurnResult | undefined;
  let nothingToResume = false;
  try {
    if (options.resumeId !== undefined) {
      result = await started.agent.resume({ signal: controller.signal });
      if (result && !json)
        process.stderr.write(
          style.dim(`resumed turn ${result.turn}: ${describeTurnEnd(result)}\n`),
        );
    }
    if (options.task && (!result || result.reason === 'completed') && !controller.signal.aborted) {
      const images = imageFiles.map((file) => storeImage(started.session, file.bytes, file.path));
      result = await started.agent.run(options.task, {
        signal: controller.signal,
        ...(images.length > 0 ? { images } : {}),
      });
    } else if (options.resumeId !== undefined && !result && !options.task) {
      // An aborted turn (Ctrl-C, SIGTERM) was closed in the log when it stopped: nothing is
      // left half-done, and re-running it unasked could repeat what the person stopped.
      writeNotice(
        `nothing to resume: every turn of the session is closed (an aborted one too); pass a task to go on: spine resume ${options.resumeId} "…"\n`,
      );
      nothingToResume = true;
    }
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSigterm);
    approver?.close();
    const running = started.jobs.manager.running();
    if (running.length > 0 && !json)
      process.stderr.write(
        `stopping ${running.length} background job(s) as spine run ends: ${running.map((job) => job.id).join(', ')}\n`,
      );
    await started.finish(result?.reason ?? 'completed');
  }
  if (result && !json) {
    const usage = started.agent.usage;
    const cost = usage.costUsd === undefined ? '' : ` · $${usage.costUsd.toFixed(4)}`;
    process.stderr.write(
      style.dim(`${describeTurnEnd(result)} · session ${started.session.id}${cost}\n`),
    );
    // The policy in force, not the configured one: a resumed session can still be in plan mode.
    if (result.deniedTools.length && !interactiveApproval && started.approval === 'ask') {
      process.stderr.write(
        style.dim(
          'nobody could be asked: pass --approval auto-edit or never-ask for unattended runs\n',
        ),
      );
    } else if (result.deniedTools.length && started.approval === 'plan') {
      process.stderr.write(
        style.dim(
          'the session is in plan mode (read, search and fetch only): to carry out the plan, pass --approval ask, auto-edit or never-ask\n',
        ),
      );
    }
  }
  const code = nothingToResume ? EXIT_CODES.usage : exitCodeForTurn(result);
  if (result?.error) {
    // Printed with --json too (on stderr): the events say what happened, not what to do.
    const advice = adviceFor(result.error);
    if (advice) writeNotice(`${advice}\n`);
    if (code === EXIT_CODES.internal) reportError(result.error);
  }
  return code;
}

/** Writes to stderr unless it is closed. */
function writeNotice(text: string): void {
  if (!isClosed(process.stderr)) process.stderr.write(text);
}

/** The model a JSONL session last sent a request to, else the one it was created with. */
function recordedModelInFiles(dir: string, id: string): string | undefined {
  const last = readLastJsonlEvent(dir, id, {
    type: 'request/header',
    where: (event) => requestModel(event) !== undefined,
  });
  return (last && requestModel(last)) ?? readJsonlHeader(dir, id)?.model;
}

/** The same for a session in another store (PostgreSQL), read by type through the store. */
async function recordedModelInStore(store: SessionStore, id: string): Promise<string | undefined> {
  if (!(await store.exists(id))) return undefined;
  let model: string | undefined;
  for await (const event of store.readRange(id, {
    fromSeq: 1,
    types: ['session/header', 'request/header'],
  })) {
    if (event.type === 'session/header') {
      const created = (event.body as { model?: unknown }).model;
      if (model === undefined && typeof created === 'string') model = created;
    } else model = requestModel(event) ?? model;
  }
  return model;
}

/** `provider/model` of a `request/header` that names both. */
function requestModel(event: SessionEvent): string | undefined {
  const { provider, model } = event.body as { provider?: unknown; model?: unknown };
  return typeof provider === 'string' && typeof model === 'string' && provider && model
    ? `${provider}/${model}`
    : undefined;
}
