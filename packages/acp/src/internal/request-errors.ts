// How a failure of a request reaches the client: a JSON-RPC error whose code says whose problem
// it is (the client's params, a missing key, the agent's own environment) and whose message says
// what to do. The SDK alone would answer every thrown error with a bare -32603 "Internal error".
import { statSync } from 'node:fs';

type Sdk = typeof import('@agentclientprotocol/sdk');
type RequestError = InstanceType<Sdk['RequestError']>;

/** File-system codes that mean the agent may not write where it keeps its sessions. */
const DENIED = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The first error in `error`'s cause chain with a string `code` in `codes`. */
function withCode(
  error: unknown,
  codes: ReadonlySet<string>,
): { code: string; path?: unknown } | undefined {
  for (let current = error, hops = 0; current && hops < 8; hops++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code))
      return current as { code: string; path?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Checks the form of a `cwd` the client sent: absolute, no NUL (whether it exists is not asked).
 *
 * @throws a {@link RequestError} -32602 (invalid params) naming what is wrong.
 */
export function checkCwdForm(sdk: Sdk, cwd: string, isAbsolute: (path: string) => boolean): void {
  if (cwd.includes('\0'))
    throw sdk.RequestError.invalidParams({ cwd }, 'cwd contains a NUL character');
  if (!isAbsolute(cwd))
    throw sdk.RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
}

/**
 * Checks a session's `cwd` the client sent: absolute, no NUL, an existing directory.
 *
 * @throws a {@link RequestError} -32602 (invalid params) naming what is wrong.
 */
export function checkCwd(sdk: Sdk, cwd: string, isAbsolute: (path: string) => boolean): void {
  checkCwdForm(sdk, cwd, isAbsolute);
  let directory: boolean;
  try {
    directory = statSync(cwd).isDirectory();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw sdk.RequestError.invalidParams(
      { cwd },
      code === 'ENOENT'
        ? 'cwd does not exist; send the workspace folder'
        : `cwd cannot be read by the agent (${String(code ?? error)}); send a workspace folder it can read`,
    );
  }
  if (!directory)
    throw sdk.RequestError.invalidParams(
      { cwd },
      'cwd is not a directory; send the workspace folder',
    );
}

/**
 * The JSON-RPC error for a failure thrown by a request handler: the SDK's own errors unchanged;
 * a configuration problem as invalid params (-32602); a missing API key as ACP's
 * `auth_required` (-32000); a session directory the agent may not write with a message naming
 * the fix; anything else as an internal error (-32603) with its message.
 */
export function requestErrorOf(sdk: Sdk, error: unknown): RequestError {
  if (error instanceof sdk.RequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'INVALID_CONFIG') return sdk.RequestError.invalidParams({ code }, message);
  if (code === 'AUTH_FAILED') return sdk.RequestError.authRequired({ code }, message);
  const denied = withCode(error, DENIED);
  if (denied) {
    const path = typeof denied.path === 'string' ? ` ${denied.path}` : '';
    // The agent's environment, not the client's request: -32603, but saying what to fix.
    return new sdk.RequestError(
      -32603,
      `Spine may not write its session files (${denied.code}${path}): make the session directory writable for this user, or start \`spine acp\` with --session-dir <a writable folder>`,
      { code: denied.code },
    );
  }
  return sdk.RequestError.internalError(typeof code === 'string' ? { code } : {}, message);
}
