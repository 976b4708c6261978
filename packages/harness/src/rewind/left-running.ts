// Commands a crash left running. A `bash` call interrupted by a crash may still run: a sandboxed
// command dies with Spine (bubblewrap's `--die-with-parent`), an unsandboxed one is reparented and
// runs on. Before a resume judges or answers an interrupted call, the processes tagged with the
// call (`SPINE_TOOL_CALL`, set by the bash tool) are stopped, so the workspace is not taken for the
// command's outcome while the command is still changing it; and what the resume did is told to
// the model with the result. A command that could not be stopped, or could not be looked for (no
// `/proc`), gets no verified verdict: its outcome is not known yet.

import type { ToolResultBody } from '@spine/protocol';
import { outcomeUnknownText } from '@spine/protocol';

/** What a resume found of an interrupted call's processes. */
export type LeftRunning =
  | { state: 'stopped'; pids: number[] }
  | { state: 'running'; pids: number[] }
  | { state: 'unchecked' };

/**
 * Stops the processes each interrupted `bash` call of `calls` (of session `sessionId`) left
 * running (SIGTERM, then SIGKILL) and waits for them. Returns, by call id, the calls that had
 * processes left (stopped, or still running when they could not be stopped), and each `bash` call
 * as `unchecked` when there is no `/proc` to look in. Only `bash` tags the commands it runs, so
 * only its calls are looked for (each look reads every process's environment).
 */
export async function stopLeftRunning(
  sessionId: string,
  calls: readonly { toolCallId: string; toolName: string }[],
): Promise<Map<string, LeftRunning>> {
  const found = new Map<string, LeftRunning>();
  const commands = calls.filter((call) => call.toolName === 'bash');
  if (commands.length === 0) return found;
  const { stopToolCallProcesses, toolCallTag } = await import('@spine/tool-runtime');
  for (const { toolCallId } of commands) {
    const result = await stopToolCallProcesses(toolCallTag(sessionId, toolCallId));
    if (!result.checked) found.set(toolCallId, { state: 'unchecked' });
    else if (result.running.length > 0)
      found.set(toolCallId, { state: 'running', pids: result.running });
    else if (result.stopped.length > 0)
      found.set(toolCallId, { state: 'stopped', pids: result.stopped });
  }
  return found;
}

/** Whether a verified verdict may be taken for a call: nothing of it can still be running. */
export function mayVerify(left: LeftRunning | undefined, toolName: string): boolean {
  if (left === undefined) return true;
  // Without /proc an unsandboxed command cannot be looked for; only `bash` runs commands.
  if (left.state === 'unchecked') return toolName !== 'bash';
  return left.state === 'stopped';
}

const list = (pids: readonly number[]): string =>
  `${pids.length === 1 ? 'pid' : 'pids'} ${pids.join(', ')}`;

/** The sentence put before a verified result of a call whose processes the resume stopped. */
export function stoppedNote(pids: readonly number[]): string {
  return `[this command was still running when the session resumed (${list(pids)}); Spine stopped it (SIGTERM, then SIGKILL) before checking the workspace.]`;
}

/**
 * `body`, a verified result, told that the resume stopped the call's processes first (when
 * `left` says so).
 */
export function withStopped(body: ToolResultBody, left: LeftRunning | undefined): ToolResultBody {
  if (left?.state !== 'stopped') return body;
  return {
    ...body,
    content: `${stoppedNote(left.pids)} ${body.content}`,
    meta: { ...body.meta, leftRunning: 'stopped', stoppedPids: left.pids },
  };
}

/**
 * The result of an interrupted call that had processes left and no verified verdict: stopped now
 * (outcome unknown), or still running (not final).
 */
export function leftRunningResult(
  call: { toolCallId: string; toolName: string },
  left: Exclude<LeftRunning, { state: 'unchecked' }>,
): ToolResultBody {
  const content =
    left.state === 'stopped'
      ? `${stoppedNote(left.pids)} ${outcomeUnknownText('Spine stopped')}`
      : `outcome not final: this command was still running when the session resumed and Spine could not stop it (${list(left.pids)}); it may still change files. Check with \`ps -p ${left.pids.join(',')}\` before retrying, and stop it with \`kill ${left.pids.join(' ')}\` if it is not needed.`;
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    content,
    isError: true,
    outcome: 'unknown',
    meta: {
      leftRunning: left.state,
      ...(left.state === 'stopped' ? { stoppedPids: left.pids } : { runningPids: left.pids }),
    },
  };
}
