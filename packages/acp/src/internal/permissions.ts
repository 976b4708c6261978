// Spine's approval questions as `session/request_permission`. Asked only when Spine's policy
// asks a person (the runtime calls `approve`); the answer goes back to the runtime, which records
// it as `tool/approval`. Anything but an explicit allow is a denial: a cancelled turn, a request
// the client fails or never answers (timeout), a connection that closed.
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
    // The turn does not wait for a client that went quiet: the abort answers `deny` at once and
    // tells the client (`$/cancel_request`); its late answer is ignored.
    const denied = new Promise<ApprovalAnswer>((resolve) => {
      if (cancelled.aborted) resolve('deny');
      cancelled.addEventListener('abort', () => resolve('deny'), { once: true });
    });
    const asked = options
      .send(params, { cancellationSignal: cancelled })
      .then((response): ApprovalAnswer => {
        const { outcome } = response.outcome;
        if (outcome !== 'selected') return 'deny';
        const { optionId } = response.outcome as { optionId: string };
        return optionId === 'allow-once' ? 'once' : optionId === 'allow-always' ? 'always' : 'deny';
      })
      .catch((): ApprovalAnswer => 'deny');
    return Promise.race([asked, denied]);
  };
}
