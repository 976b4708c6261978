// Spine's approval questions as `session/request_permission`. Asked only when Spine's policy
// asks a person (the runtime calls `approve`); the answer goes back to the runtime, which records
// it as `tool/approval`. Anything but an explicit allow is a denial: a cancelled turn, a request
// the client fails or never answers (timeout), a connection that closed. `/rewind` asks the same
// way before overwriting files changed outside Spine.

import { resolve } from 'node:path';
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import {
  parseArguments,
  proposedContent,
  toolKind,
  toolLocations,
  toolTitle,
} from './tool-calls.js';

/** Default time a client gets to answer a permission request before it counts as a denial. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 10 * 60_000;

const OPTIONS: PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow in this session', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Deny', kind: 'reject_once' },
];

/** Sends one request and resolves with its response (the SDK's `client.request`). */
export type PermissionSender = (
  params: RequestPermissionRequest,
  options: { cancellationSignal: AbortSignal },
) => Promise<RequestPermissionResponse>;

/** The runtime's `approve` for one ACP session. */
export function createApprover(options: {
  sessionId: string;
  cwd: string;
  send: PermissionSender;
  timeoutMs: number;
  /** Aborted when the connection closes. */
  connection: AbortSignal;
}): (request: ApprovalRequest, run: { signal?: AbortSignal }) => Promise<ApprovalAnswer> {
  return async (request, run) => {
    const args = parseArguments(JSON.stringify(request.args ?? {}));
    const signals = [options.connection, AbortSignal.timeout(options.timeoutMs)];
    if (run.signal) signals.push(run.signal);
    const cancelled = AbortSignal.any(signals);
    if (cancelled.aborted) return 'deny';
    const params: RequestPermissionRequest = {
      sessionId: options.sessionId,
      toolCall: {
        toolCallId: request.toolCallId,
        title: toolTitle(request.toolName, args),
        kind: toolKind(request.toolName),
        status: 'pending',
        content: proposedContent(options.cwd, request.toolName, args),
        locations: toolLocations(options.cwd, args),
        rawInput: args,
      },
      options: OPTIONS,
    };
    const chosen = await ask(options.send, params, cancelled);
    return chosen === 'allow-once' ? 'once' : chosen === 'allow-always' ? 'always' : 'deny';
  };
}

/**
 * Sends `params` and resolves with the option the client selected, or undefined: cancelled, the
 * request failed, or `cancelled` aborted first (the turn does not wait for a client that went
 * quiet: the abort answers at once and tells the client with `$/cancel_request`; its late
 * answer is ignored).
 */
async function ask(
  send: PermissionSender,
  params: RequestPermissionRequest,
  cancelled: AbortSignal,
): Promise<string | undefined> {
  if (cancelled.aborted) return undefined;
  const gaveUp = new Promise<undefined>((resolve) => {
    cancelled.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  const asked = send(params, { cancellationSignal: cancelled })
    .then((response) =>
      response.outcome.outcome === 'selected' ? response.outcome.optionId : undefined,
    )
    .catch(() => undefined);
  return Promise.race([asked, gaveUp]);
}

const REWIND_OPTIONS: PermissionOption[] = [
  { optionId: 'allow-once', name: 'Overwrite them', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Keep them (no rewind)', kind: 'reject_once' },
];

/**
 * The `confirm` of an ACP `/rewind`: asks the client, as the CLI asks a person, whether files
 * changed outside Spine may be overwritten. Only an explicit "allow once" overwrites; a
 * rejection, a cancelled or failed request, a timeout or a closed connection keep the files.
 */
export function createRewindConfirmer(options: {
  sessionId: string;
  cwd: string;
  send: PermissionSender;
  timeoutMs: number;
  /** Aborted when the connection closes. */
  connection: AbortSignal;
}): (paths: readonly string[]) => Promise<boolean> {
  let asked = 0;
  return async (paths) => {
    asked++;
    const params: RequestPermissionRequest = {
      sessionId: options.sessionId,
      toolCall: {
        toolCallId: `spine-rewind-${asked}`,
        title: `Rewind: overwrite ${paths.length} file(s) changed outside Spine`,
        kind: 'edit',
        status: 'pending',
        locations: paths.map((path) => ({ path: resolve(options.cwd, path) })),
        rawInput: { paths: [...paths] },
      },
      options: REWIND_OPTIONS,
    };
    const cancelled = AbortSignal.any([options.connection, AbortSignal.timeout(options.timeoutMs)]);
    return (await ask(options.send, params, cancelled)) === 'allow-once';
  };
}
