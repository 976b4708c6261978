// Starts (or opens, to load or resume) the Spine session behind an ACP session: the workspace's
// configuration plus the client's MCP servers, approvals asked through the client, warnings to
// the host. An unknown id is the client's error, never a new session.
import { isAbsolute } from 'node:path';
import type {
  AgentContext,
  McpServer,
  RequestPermissionRequest,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import {
  type AgentSession,
  type ResolvedModel,
  SessionNotFoundError,
  type SpineConfig,
  startAgentSession,
} from '@spine/harness';
import { AcpSession } from './acp-session.js';
import { withClientServers } from './mcp-servers.js';
import { createApprover, createRewindConfirmer } from './permissions.js';
import { checkCwd } from './request-errors.js';

/** What {@link openSession} needs from the server. */
export interface OpenContext {
  sdk: typeof import('@agentclientprotocol/sdk');
  config: (cwd: string) => SpineConfig;
  model?: ResolvedModel;
  lsp?: boolean;
  web?: boolean;
  permissionTimeoutMs: number;
  warn: (message: string) => void;
  /** Aborted when the connection closes. */
  connection: AbortSignal;
  /** The update sender of a session id. */
  sendTo: (client: AgentContext, sessionId: string) => (update: SessionUpdate) => void;
}

/** Opens the Spine session for `cwd` (new, or `resumeId`) and wraps it. */
export async function openSession(
  context: OpenContext,
  request: {
    client: AgentContext;
    cwd: string;
    resumeId?: string;
    mcpServers?: readonly McpServer[];
  },
): Promise<AcpSession> {
  const { sdk } = context;
  const { client, cwd, resumeId } = request;
  checkCwd(sdk, cwd, isAbsolute);
  const config = withClientServers(context.config(cwd), request.mcpServers ?? []);
  // The id is known once the session exists; no request is sent before then.
  let sessionId = resumeId ?? '';
  const asking = {
    sessionId,
    cwd,
    timeoutMs: context.permissionTimeoutMs,
    connection: context.connection,
    send: (params: RequestPermissionRequest, options: { cancellationSignal: AbortSignal }) =>
      client.request('session/request_permission', { ...params, sessionId }, options),
  };
  const approve = createApprover(asking);
  let active: AgentSession;
  try {
    active = await startAgentSession({
      config,
      cwd,
      approve,
      onWarning: context.warn,
      ...(resumeId === undefined ? {} : { resumeId }),
      ...(context.model ? { model: context.model } : {}),
      ...(context.lsp === undefined ? {} : { lsp: context.lsp }),
      ...(context.web === undefined ? {} : { web: context.web }),
    });
  } catch (error) {
    if (error instanceof SessionNotFoundError)
      throw sdk.RequestError.sessionNotFound(resumeId ?? '');
    throw error;
  }
  sessionId = active.session.id;
  return new AcpSession({
    active,
    cwd,
    send: context.sendTo(client, sessionId),
    commands: { confirmRewind: createRewindConfirmer(asking) },
  });
}
