import type { TurnResult } from '@spine/agent-loop';
import { explainMissingPart } from '@spine/harness';
import { isModelErrorCode, ModelError, SpineError } from '@spine/protocol';
import { EXIT_CODES, type ExitCode } from './exit-codes.js';
import { systemReason } from './system-reasons.js';

/** The session a command is working on, named in a bug report. */
let currentSession: { id: string; dir: string } | undefined;

/** Records the session the running command works on (a bug report names it). */
export function noteSession(id: string, dir: string): void {
  currentSession = { id, dir };
}

/** The exit code for an error that ended a command. */
export function exitCodeOf(thrown: unknown): ExitCode {
  const error = explainMissingPart(thrown);
  if (error instanceof ModelError || (SpineError.isInstance(error) && isModelCode(error.code)))
    return EXIT_CODES.model;
  if (SpineError.isInstance(error)) {
    if (error.code === 'ABORTED') return EXIT_CODES.aborted;
    if (error.code === 'REPLAY_MISMATCH') return EXIT_CODES.mismatch;
    if (error.code === 'TOOL_DENIED' || error.code === 'PROMPT_BLOCKED')
      return EXIT_CODES.toolDenied;
    if (USAGE_CODES.has(error.code)) return EXIT_CODES.usage;
  }
  // The file system refused (a session directory that is a file, no permission, disk full):
  // the environment, not a bug.
  if (systemErrorOf(error)) return EXIT_CODES.usage;
  return EXIT_CODES.internal;
}

/** The exit code for a turn's outcome (see {@link EXIT_CODES}). */
export function exitCodeForTurn(result: TurnResult | undefined): ExitCode {
  if (!result) return EXIT_CODES.ok;
  switch (result.reason) {
    case 'completed':
      return result.deniedTools.length ? EXIT_CODES.toolDenied : EXIT_CODES.ok;
    case 'max-steps':
      return EXIT_CODES.stepLimit;
    case 'stuck':
      return EXIT_CODES.stuck;
    case 'budget':
      return EXIT_CODES.budget;
    case 'aborted':
      return EXIT_CODES.aborted;
    default:
      return result.error ? exitCodeOf(result.error) : EXIT_CODES.internal;
  }
}

/** Codes that mean the command cannot act on what it was given (exit 2). */
const USAGE_CODES = new Set([
  'INVALID_CONFIG',
  'SESSION_NOT_FOUND',
  'SESSION_LOCKED',
  'SESSION_EXISTS',
  'SESSION_CORRUPT',
  'STORE_UNAVAILABLE',
  'UNSUPPORTED_FORMAT',
  'IMAGE_REFUSED',
  'IMAGES_UNSUPPORTED',
  'BLOB_MISSING',
]);

/** A Node system error (`EEXIST`, `ENOTDIR`, `EACCES`, `ENOSPC` …) from a file system call. */
function systemErrorOf(error: unknown): SystemError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code) || typeof syscall !== 'string')
    return undefined;
  const { address, port } = error as { address?: unknown; port?: unknown };
  return {
    code,
    syscall,
    message: error.message,
    ...(path ? { path } : {}),
    ...(typeof address === 'string' ? { address } : {}),
    ...(typeof port === 'number' ? { port } : {}),
  };
}

interface SystemError {
  code: string;
  syscall: string;
  message: string;
  path?: string;
  address?: string;
  port?: number;
}

/** "could not open /x/y: permission denied (EACCES)", with the advice that fits the call. */
function systemErrorText(system: SystemError): string {
  const reason =
    system.syscall === 'mkdir' && system.code === 'EEXIST'
      ? 'it exists and is not a directory'
      : systemReason(system.code);
  if (system.syscall === 'listen' || system.syscall === 'bind') {
    const where = system.port === undefined ? '' : ` ${system.address ?? ''}:${system.port}`;
    return `could not listen on${where}: ${reason} (${system.code}); choose another port`;
  }
  const target = system.path ? ` ${system.path}` : '';
  const advice = system.path
    ? '; check that path, its permissions and the free space (sessions are kept in --session-dir or SPINE_SESSION_DIR)'
    : '';
  return `could not ${system.syscall}${target}: ${reason} (${system.code})${advice}`;
}

function isModelCode(code: string): boolean {
  if (code === 'COMPACTION_FAILED' || code === 'COMPACTION_DISABLED') return true;
  return code !== 'ABORTED' && isModelErrorCode(code);
}

/** What a CLI user can do about an error, beyond its message (empty when nothing to add). */
export function adviceFor(error: { code: string } | undefined): string {
  if (!error) return '';
  if (['CONTEXT_OVERFLOW', 'COMPACTION_FAILED', 'COMPACTION_DISABLED'].includes(error.code)) {
    return [
      'The request does not fit the model. What you can do:',
      '  · lower the output cap (maxOutputTokens of the model entry in your configuration)',
      '  · use a model with a bigger window (--model, or contextWindow in the configuration)',
      '  · compact with a focus in the interactive mode (/compact <what to keep>), then resume',
      '  · ask for a narrower tool result (a line range, a filter) instead of the whole output',
      '  · or start a new session with a smaller task',
    ].join('\n');
  }
  return '';
}

/** Where a bug is reported, with the session to attach. */
function bugReport(): string {
  const session = currentSession
    ? ` Attach session ${currentSession.id} (its log is in ${currentSession.dir}; \`spine export ${currentSession.id} --format json\` writes it out).`
    : '';
  return `This is a bug in spine: report it on the Spine issue tracker with this output and \`spine --version\`.${session}`;
}

/** Prints an error for a person: the message (which says what to do), plus the code. */
export function reportError(thrown: unknown): void {
  const error = explainMissingPart(thrown);
  try {
    if (SpineError.isInstance(error)) {
      const advice = adviceFor(error);
      const bug = exitCodeOf(error) === EXIT_CODES.internal ? `\n${bugReport()}` : '';
      process.stderr.write(
        `spine: ${error.message} [${error.code}]${advice ? `\n${advice}` : ''}${bug}\n`,
      );
      return;
    }
    const system = systemErrorOf(error);
    if (system) {
      process.stderr.write(`spine: ${systemErrorText(system)} [${system.code}]\n`);
      return;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`spine: unexpected internal error: ${message}\n${bugReport()}\n`);
  } catch {
    // stderr is gone (closed terminal, closed pipe): the exit code still says what happened.
  }
}
