import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning, processStartTime } from './process-identity.js';
import {
  findToolCallProcesses,
  stopToolCallProcesses,
  TOOL_CALL_ENV,
  toolCallTag,
} from './tool-call-processes.js';

const tags: string[] = [];
afterEach(async () => {
  for (const tag of tags.splice(0)) await stopToolCallProcesses(tag, { graceMs: 0 });
});

/** Starts `script` under bash with `tag` in its environment, detached like an orphaned command. */
function startTagged(tag: string, script: string): number {
  const child = spawn('/bin/bash', ['-c', script], {
    env: { PATH: process.env.PATH, [TOOL_CALL_ENV]: tag },
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  tags.push(tag);
  return child.pid as number;
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
};

describe.runIf(process.platform === 'linux')('the processes of a tool call', () => {
  it('finds a tagged command and the child that left its process group, and only those', async () => {
    const session = `s-${process.pid}-${Date.now()}`;
    const tag = toolCallTag(session, 'call_1');
    // A child in its own session (setsid) is outside the group but keeps the environment.
    const pid = startTagged(tag, 'setsid sleep 300 & sleep 300; touch never');
    // A tag that only starts like this one (call_10) is another call's.
    const other = startTagged(toolCallTag(session, 'call_10'), 'sleep 300');
    await until(() => (findToolCallProcesses(tag)?.length ?? 0) >= 3);
    const found = findToolCallProcesses(tag) ?? [];
    expect(found.map((identity) => identity.pid)).toContain(pid);
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(found.map((identity) => identity.pid)).not.toContain(other);
    for (const identity of found) expect(processStartTime(identity.pid)).toBe(identity.startTime);
    expect(findToolCallProcesses(toolCallTag(session, 'call_2'))).toEqual([]);
  });

  it('stops every process of the call, SIGKILL for one that ignores SIGTERM, and waits for them', async () => {
    const tag = toolCallTag(`s-${process.pid}-${Date.now()}`, 'call_7');
    const other = startTagged(toolCallTag('another-session', 'call_7'), 'sleep 300');
    startTagged(tag, "trap '' TERM; setsid sleep 300 & sleep 300");
    await until(() => (findToolCallProcesses(tag)?.length ?? 0) >= 3);
    const before = findToolCallProcesses(tag) ?? [];
    const result = await stopToolCallProcesses(tag, { graceMs: 200 });
    expect(result.checked).toBe(true);
    expect(result.running).toEqual([]);
    expect(result.stopped).toEqual(before.map((identity) => identity.pid).sort((a, b) => a - b));
    for (const identity of before) expect(isProcessRunning(identity)).toBe(false);
    expect(findToolCallProcesses(tag)).toEqual([]);
    // Another session's call of the same id is left alone.
    expect(processStartTime(other)).toBeDefined();
  });

  it('reports nothing stopped when the call left nothing running', async () => {
    expect(await stopToolCallProcesses(toolCallTag('none', 'call_0'))).toEqual({
      stopped: [],
      running: [],
      checked: true,
    });
  });
});
