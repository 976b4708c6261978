import { createInterface, type Interface } from 'node:readline';
import {
  type AgentSession,
  currentSessionTitle,
  deriveSessionTitle,
  imageMentions,
  preview,
  recordSessionTitle,
  type SpineConfig,
  startAgentSession,
  storeImage,
} from '@spine/harness';
import type { ImagePart } from '@spine/protocol';
import { checkWorkspaceReference } from '@spine/tool-runtime';
import {
  type CodeHighlighter,
  describeElicitation,
  describeTurnEnd,
  fitFigures,
  parseElicitationAnswer,
  type Style,
  type SubagentPanel,
  statusLine,
  styleFor,
  TerminalTitle,
  terminalTitleEnabled,
} from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { reportError } from '../report-error.js';
import { describeApproval, networkText } from './approval-preview.js';
import { ApprovalQueue } from './approval-queue.js';
import { terminalHighlighter } from './code-highlight.js';
import { exitQuestion, jobsRunningNote } from './job-commands.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, KeyGate, pastedText } from './key-gate.js';
import { attachLiveView } from './live-view.js';
import { type OpenElicitation, ReadAhead } from './read-ahead.js';
import { runSlashCommand } from './slash-commands.js';
import { releaseDeadTerminal, terminalDescriptors } from './terminal-gone.js';
import { openTranscriptPager } from './transcript-pager.js';
import { completeInput, referenceProblems, type WorkspaceInput } from './workspace-input.js';

const PROMPT = '› ';

/**
 * The interactive session: a readline REPL with streamed output, approval prompts, input queued
 * while a step runs, `@path` completion, slash commands and Ctrl-C handling (the first cancels
 * the running turn, a second one exits).
 */
export async function runInteractive(flags: AgentFlags): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  // Only an explicit `--approval` takes a resumed session out of plan mode (`/resume`).
  const repl = new Repl(loaded.config, cwd, {
    approvalChosen: loaded.provenance.get('approval')?.layer === 'flag',
  });
  return repl.start();
}

class Repl {
  readonly #config: SpineConfig;
  readonly #cwd: string;
  readonly #style: Style = styleFor(process.stdout);
  readonly #out = process.stdout;
  #rl!: Interface;
  /** On a terminal: the keys readline gets, except at an approval, decided by one key. */
  #gate: KeyGate | undefined;
  /** Highlights fenced code on a terminal (highlight.js, when installed). */
  #highlight: CodeHighlighter | undefined;
  #active!: AgentSession;
  #detach: () => void = () => {};
  #turn: { controller: AbortController; done: Promise<void> } | undefined;
  /** Approval questions, one at a time (parallel subagents may ask at once). */
  readonly #approvals: ApprovalQueue;
  /** Subagents' live lines; all output passes through it (@spine/tui's SubagentPanel). */
  #panel: SubagentPanel | undefined;
  /** An MCP server's question (elicitation) waiting for the person's next line. */
  #elicitation: OpenElicitation | undefined;
  #interrupts = 0;
  /** True while the question before an exit that stops background jobs waits for its answer. */
  #exitAsked = false;
  /** Slash commands typed during a turn that run at its end (`/title text`). */
  #afterTurn: string[] = [];
  #showReasoning = true;
  #quitting = false;
  /** The code the session exits with: 130 once aborted (Ctrl-C twice, SIGTERM, SIGHUP). */
  #exitCode: number = EXIT_CODES.ok;
  /** Off a terminal, lines read ahead: answers to the turn's questions, or the next messages. */
  readonly #readAhead: ReadAhead;
  #exit!: (code: number) => void;
  /** The session's latest title; the first request sets one when there is none. */
  #title: string | undefined;
  /** The window title (project · session title) and turn progress (OSC 2, OSC 9;4). */
  readonly #terminal: TerminalTitle;

  readonly #approvalChosen: boolean;

  constructor(config: SpineConfig, cwd: string, options: { approvalChosen?: boolean } = {}) {
    this.#config = config;
    this.#approvalChosen = options.approvalChosen === true;
    this.#cwd = cwd;
    const enabled = terminalTitleEnabled(this.#out, process.env, config.terminal.title);
    this.#terminal = new TerminalTitle(this.#out, cwd, enabled);
    this.#approvals = new ApprovalQueue({
      style: this.#style,
      out: this.#out,
      panel: () => this.#panel,
      gate: () => this.#gate,
      describe: (request) =>
        describeApproval(request, {
          cwd: this.#cwd,
          active: this.#active,
          network: networkText(this.#config.shell.network),
        }),
      print: (text) => this.#print(text),
      interrupt: () => this.#onInterrupt(),
      opened: () => this.#readAhead.answer(),
    });
    this.#readAhead = new ReadAhead({
      terminal: () => this.#gate !== undefined,
      turnRunning: () => this.#turn !== undefined,
      quitting: () => this.#quitting,
      approvals: this.#approvals,
      elicitation: () => this.#elicitation,
      closeElicitation: () => {
        this.#elicitation = undefined;
      },
      write: (text) => this.#write(text),
      denyOpen: () => {
        // Fail closed: nobody is left to answer. The session then exits 4 (a call denied).
        this.#exitCode = EXIT_CODES.toolDenied;
        this.#approvals.denyOpen('(end of input)');
      },
      enter: (line) =>
        this.#onLine(line, { held: true }).catch((error: unknown) => {
          reportError(error);
          this.#prompt();
        }),
      finished: () => void this.#quit({ abort: false }),
    });
  }

  async start(): Promise<number> {
    this.#highlight = await terminalHighlighter(this.#out);
    this.#active = await this.#open();
    // Which of fds 0–2 are terminals, to tell a hung-up terminal at exit (terminal-gone.ts).
    const terminals = terminalDescriptors();
    if (process.stdin.isTTY) {
      this.#gate = new KeyGate(process.stdin);
      // The terminal went away (end of its input or EIO): abort and close the turn, exit 130.
      this.#gate.once('hangup', () => void this.#quit({ code: EXIT_CODES.aborted }));
      // A paste arrives as one piece (bracketed), to be sent as one message.
      if (this.#out.isTTY) this.#out.write(BRACKETED_PASTE_ON);
    } else {
      // A failed read of piped input ends the input, as its end would.
      process.stdin.on('error', () => this.#rl.close());
    }
    this.#rl = createInterface({
      input: this.#gate ?? process.stdin,
      output: this.#out,
      terminal: Boolean(process.stdin.isTTY),
      completer: (line: string) => completeInput(line, this.#workspace()),
      history: [],
    });
    // On a resize only the live region (the panel) is redrawn; finished lines stay as printed.
    this.#out.on('resize', () => this.#panel?.resize());
    const exited = new Promise<number>((resolve) => {
      this.#exit = resolve;
    });
    // The banner, like the status line, breaks between its figures where it does not fit.
    const columns = this.#out.isTTY ? this.#out.columns || 80 : Number.POSITIVE_INFINITY;
    for (const line of fitFigures(['spine', this.#config.model, this.#cwd], columns))
      this.#print(this.#style.bold(line));
    const session = `session ${this.#active.session.id}`;
    for (const line of fitFigures(
      [session, '/help for commands', 'Ctrl-C cancels, twice exits'],
      columns,
    ))
      this.#print(this.#style.dim(line));
    this.#rl.on('line', (line) => {
      this.#onLine(line).catch((error: unknown) => {
        reportError(error);
        this.#prompt();
      });
    });
    this.#rl.on('SIGINT', () => this.#onInterrupt());
    // SIGTERM, or SIGHUP (the terminal went away): end the turn cleanly (turn/end in the log).
    for (const signal of ['SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => void this.#quit({ code: EXIT_CODES.aborted }));
    // However the process ends, the terminal gets its own title back and no stuck progress, and
    // Node does not abort resetting a terminal that hung up.
    process.once('exit', () => {
      this.#terminal.restore();
      if (this.#gate && this.#out.isTTY && !this.#gate.gone) this.#out.write(BRACKETED_PASTE_OFF);
      releaseDeadTerminal(terminals);
    });
    // End of input (Ctrl-D, or the end of piped input) lets a running turn finish; a question
    // open now, or asked later, is denied (fail closed; exit 4).
    this.#rl.on('close', () => this.#readAhead.end());
    this.#prompt();
    return exited;
  }

  /** Opens a session; when switching, the model and sandbox chosen with slash commands carry over. */
  async #open(resumeId?: string, previous?: AgentSession): Promise<AgentSession> {
    const active = await startAgentSession({
      config: previous
        ? { ...this.#config, sandbox: previous.runtime.sandbox, approval: previous.approval }
        : this.#config,
      cwd: this.#cwd,
      ...(resumeId ? { resumeId, approvalChosen: this.#approvalChosen } : {}),
      ...(previous ? { model: previous.model } : {}),
      approve: (request) => this.#approvals.ask(request),
      onWarning: (message) => this.#print(this.#style.yellow(`warning: ${message}`)),
    });
    // MCP servers that enable elicitation ask the person here (@spine/tui's elicitation form).
    active.mcp?.setElicitationHandler(async (request) => {
      this.#write(`\n${describeElicitation(request)}`);
      const line = await new Promise<string>((resolve) => {
        this.#elicitation = { resolve };
        queueMicrotask(() => this.#readAhead.answer());
      });
      return parseElicitationAnswer(line, request);
    });
    this.#title = currentSessionTitle(this.#config.sessionDir, active.session);
    this.#terminal.set(this.#title);
    this.#panel?.dispose();
    const view = attachLiveView(active, {
      out: this.#out,
      style: this.#style,
      highlight: this.#highlight,
      showReasoning: () => this.#showReasoning,
      // A half-typed line was cleared with the old panel: show it again below the new one.
      afterDraw: () => {
        if (this.#rl?.line) this.#rl.prompt(true);
      },
    });
    this.#panel = view.panel;
    this.#detach = view.detach;
    active.agent.on('queued', ({ queue, item }) => {
      this.#print(
        this.#style.dim(
          `queued for the ${queue === 'next-step' ? 'next step' : 'next turn'}: ${preview(item.content, 80)}`,
        ),
      );
    });
    return active;
  }

  #print(text: string): void {
    if (this.#panel) this.#panel.line(text);
    else this.#out.write(`${text}\n`);
  }

  #write(text: string): void {
    if (this.#panel) this.#panel.write(text);
    else this.#out.write(text);
  }

  #prompt(): void {
    if (this.#quitting) return;
    this.#rl.setPrompt(this.#turn ? '' : PROMPT);
    if (!this.#turn) this.#rl.prompt();
  }

  async #onLine(raw: string, options: { held?: boolean } = {}): Promise<void> {
    if (this.#quitting) return;
    // Off a terminal, a line read while a turn runs waits (it may answer the turn's question),
    // and so does one read while the lines held before it are taken. Slash commands keep their
    // course: those allowed during a turn run at once.
    if (this.#readAhead.hold(raw, options)) return;
    // `exit` or `quit` alone ends the session, as /quit does.
    const line = /^\s*(exit|quit)\s*$/i.test(raw) ? '/quit' : pastedText(raw).trim();
    this.#interrupts = 0;
    if (this.#exitAsked) {
      this.#exitAsked = false;
      if (line.toLowerCase() === 'y') return void (await this.#quit({ code: EXIT_CODES.aborted }));
      this.#print(this.#style.dim('background jobs keep running'));
      if (!line) return this.#prompt();
    }
    this.#panel?.lineEntered();
    if (this.#elicitation) {
      const { resolve } = this.#elicitation;
      this.#elicitation = undefined;
      resolve(line);
      return;
    }
    if (this.#approvals.isOpen) {
      this.#approvals.answerLine(line);
      return;
    }
    if (!line) return this.#prompt();
    // Ends the session at once, so that no line after it is taken (piped input).
    if (!this.#turn && /^\/(quit|exit)$/.test(line)) return this.#quit();
    if (line.startsWith('/')) {
      if (
        this.#turn &&
        ![
          '/cost',
          '/context',
          '/help',
          '/reasoning',
          '/approval',
          '/agents',
          '/title',
          '/jobs',
          '/kill',
        ].some((name) => line.startsWith(name))
      ) {
        this.#print(
          this.#style.yellow('a turn is running: wait for it, or Ctrl-C to cancel it first'),
        );
        return;
      }
      // A title set mid-turn is recorded at the turn's end, where a rerun reproduces it.
      if (this.#turn && /^\/title\s+\S/.test(line)) {
        this.#afterTurn.push(line);
        this.#print(this.#style.dim('the title is set when this turn ends'));
        return;
      }
      await this.#slash(line);
      return;
    }
    if (this.#turn) {
      this.#active.agent.enqueue(line, 'next-step');
      return;
    }
    for (const problem of referenceProblems(line, this.#workspace()))
      this.#print(this.#style.yellow(problem));
    this.#startTurn(line);
  }

  /** Runs a slash command and acts on its outcome. */
  async #slash(line: string): Promise<void> {
    const outcome = await runSlashCommand(line, this.#active, {
      out: this.#panel?.stream() ?? this.#out,
      style: this.#style,
    });
    if (outcome.kind === 'watch') this.#panel?.watch(outcome.child);
    // The pager takes the keys until q; the prompt comes back on the normal screen after it.
    if (outcome.kind === 'transcript' && this.#pager()) return;
    if (outcome.kind === 'title') {
      this.#title = outcome.title;
      this.#terminal.set(outcome.title);
    }
    if (outcome.kind === 'quit') return this.#quit();
    if (outcome.kind === 'switch') await this.#switch(outcome.sessionId, outcome.note);
    if (outcome.kind === 'send') {
      // An MCP prompt's text becomes the turn's input, recorded like typed input.
      this.#startTurn(outcome.text);
      return;
    }
    if (outcome.kind === 'toggle-reasoning') {
      this.#showReasoning = !this.#showReasoning;
      this.#print(`reasoning ${this.#showReasoning ? 'shown (dimmed)' : 'collapsed'}`);
    }
    this.#prompt();
  }

  /** Opens `/transcript` (on a terminal); returns whether it opened. */
  #pager(): boolean {
    return openTranscriptPager({
      gate: this.#gate,
      out: this.#out,
      session: this.#active.session,
      style: this.#style,
      print: (text) => this.#print(text),
      done: () => this.#prompt(),
    });
  }

  /** The images `@path` mentions in `input` attach (stored in the session), or the refusal shown. */
  #mentionedImages(input: string): ImagePart[] | undefined {
    const { exclude } = this.#workspace();
    const allowed = (reference: string): boolean =>
      checkWorkspaceReference(this.#cwd, reference, { exclude }) === 'ok';
    try {
      return imageMentions(input, this.#cwd, { allowed }).map((file) =>
        storeImage(this.#active.session, file.bytes, `@${file.path}`),
      );
    } catch (error) {
      this.#print(this.#style.red((error as Error).message));
      return undefined;
    }
  }

  #startTurn(input: string): void {
    const images = this.#mentionedImages(input);
    if (!images) {
      this.#prompt();
      return;
    }
    const controller = new AbortController();
    const active = this.#active;
    if (this.#title === undefined) {
      // The first request names the session, at once (recorded, and in the window title).
      this.#title = deriveSessionTitle(input);
      recordSessionTitle(active.session, this.#config.sessionDir, this.#title, 'auto');
      this.#terminal.set(this.#title);
    }
    this.#terminal.progress(true);
    const done = active.agent
      .run(input, { signal: controller.signal, ...(images.length > 0 ? { images } : {}) })
      .then(async (result) => {
        if (result.reason !== 'completed' || result.deniedTools.length) {
          this.#print(this.#style.yellow(describeTurnEnd(result)));
        }
        const jobs = jobsRunningNote(active, this.#style);
        if (jobs) this.#print(jobs);
        if (result.reason === 'aborted') {
          const print = (text: string) => this.#print(text);
          await (await import('../rewind/slash.js')).afterAbortedTurn(active, result.turn, print);
        }
      })
      .catch((error: unknown) => reportError(error))
      .finally(() => {
        this.#turn = undefined;
        this.#terminal.progress(false);
        this.#approvals.denyAll();
        this.#interrupts = 0;
        // On a terminal the status line is split between its figures where it does not fit.
        const columns = this.#out.isTTY ? this.#out.columns || 80 : undefined;
        this.#print(statusLine(active, this.#style, columns));
        this.#prompt();
        for (const line of this.#afterTurn.splice(0))
          this.#slash(line).catch((error: unknown) => reportError(error));
        void this.#readAhead.take();
      });
    this.#turn = { controller, done };
    this.#prompt();
  }

  #onInterrupt(): void {
    this.#interrupts++;
    if (this.#interrupts >= 2) {
      // Exiting stops background jobs: ask first (once; y or another Ctrl-C confirms).
      const question = this.#exitAsked ? undefined : exitQuestion(this.#active, this.#style);
      if (question) {
        this.#exitAsked = true;
        this.#print(question);
        return;
      }
      void this.#quit({ code: EXIT_CODES.aborted });
      return;
    }
    if (this.#turn) {
      this.#approvals.denyAll();
      this.#elicitation?.resolve('cancel');
      this.#elicitation = undefined;
      this.#turn.controller.abort();
      this.#print(this.#style.yellow('\ncancelling the turn… (Ctrl-C again to exit)'));
      return;
    }
    this.#rl.write('', { ctrl: true, name: 'u' });
    this.#print(this.#style.dim('\n(Ctrl-C again to exit, or /quit)'));
    this.#prompt();
  }

  async #switch(sessionId: string, note: string): Promise<void> {
    const previous = this.#active;
    this.#detach();
    await previous.finish('switched');
    try {
      this.#active = await this.#open(sessionId, previous);
      this.#print(this.#style.dim(`${note}; now in ${sessionId}`));
      const recordedCwd = this.#active.session.header.cwd;
      if (recordedCwd && recordedCwd !== this.#cwd) {
        this.#print(
          this.#style.yellow(
            `note: this session was recorded in ${recordedCwd}; tools now work in ${this.#cwd}`,
          ),
        );
      }
    } catch (error) {
      reportError(error);
      this.#active = await this.#open(previous.session.id, previous);
    }
    if (this.#active.agent.interruptedTurn !== undefined) {
      this.#print(
        this.#style.dim(`continuing the interrupted turn ${this.#active.agent.interruptedTurn}`),
      );
      const controller = new AbortController();
      const done = this.#active.agent
        .resume({ signal: controller.signal })
        .then(() => undefined)
        .catch((error: unknown) => reportError(error))
        .finally(() => {
          this.#turn = undefined;
          this.#prompt();
        });
      this.#turn = { controller, done };
    }
  }

  /** Where `@path` references and completions look. */
  #workspace(): WorkspaceInput {
    return { cwd: this.#cwd, exclude: this.#config.tools.exclude, mcp: this.#active.mcp };
  }

  /**
   * Ends the session: a running turn is aborted (its questions denied), or with
   * `abort: false` (end of input) allowed to finish. A later call that aborts still aborts the
   * turn the first one waits for (the terminal hung up after Ctrl-D), and its code wins.
   */
  async #quit(options: { abort?: boolean; code?: number } = {}): Promise<void> {
    if (options.code !== undefined) this.#exitCode = options.code;
    if (options.abort !== false && this.#turn) {
      this.#approvals.denyAll();
      this.#elicitation?.resolve('cancel');
      this.#elicitation = undefined;
      this.#turn.controller.abort();
    }
    if (this.#quitting) return;
    this.#quitting = true;
    if (this.#turn) await this.#turn.done;
    this.#detach();
    this.#panel?.dispose();
    await this.#active.finish('exit');
    this.#terminal.restore();
    this.#rl.close();
    this.#gate?.close();
    this.#exit(this.#exitCode);
  }
}
