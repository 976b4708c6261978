// Public API of @spine/acp. Every export here is a semver promise.

/**
 * Spine's coding agent served over the Agent Client Protocol (ACP), so editors such as Zed drive
 * it: {@link serveAcp} answers one client on a stream (stdio for `spine acp`). Sessions load
 * exactly from the log, approvals stay under Spine's policy, and every session passes
 * `spine replay --verify` whichever door it came through.
 *
 * @packageDocumentation
 */

export {
  type AcpAgentOptions,
  type AcpMessage,
  type AcpServer,
  type AcpTransport,
  serveAcp,
} from './acp-agent.js';
