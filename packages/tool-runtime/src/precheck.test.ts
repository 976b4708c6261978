import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest, ToolCallPart, ToolRunEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/helpers.js';
import { createToolRuntime } from './runtime.js';
import { createWorkspaceTools } from './workspace-tools.js';

let n = 0;
const call = (name: string, args: object): ToolCallPart => ({
  type: 'tool-call',
  id: `call_${++n}`,
  name,
  arguments: JSON.stringify(args),
});

/** A runtime that asks for every change, recording who was asked and what was logged. */
function setup() {
  const ws = makeTempDir().dir;
  writeFileSync(join(ws, 'calc.js'), 'function add(a, b) {\n  return a + b;\n}\n');
  const runtime = createToolRuntime({
    cwd: ws,
    tools: createWorkspaceTools({ cwd: ws }),
    approval: 'ask',
  });
  const asked: ApprovalRequest[] = [];
  const events: ToolRunEvent[] = [];
  const options = {
    approve: async (request: ApprovalRequest) => {
      asked.push(request);
      return 'once' as const;
    },
    onEvent: (event: ToolRunEvent) => events.push(event),
  };
  return { ws, runtime, asked, events, options };
}

describe('precheck: arguments the tool would refuse are refused before anyone is asked', () => {
  it('refuses an edit of an unread file, an oldText not found and a path outside the workspace', async () => {
    const { ws, runtime, asked, events, options } = setup();
    const results = await runtime.run(
      [
        call('edit', { path: 'calc.js', edits: [{ oldText: 'a + b', newText: 'a - b' }] }),
        call('write', { path: 'calc.js', content: 'x' }),
        call('write', { path: '../outside.txt', content: 'x' }),
        call('read', { path: 'calc.js' }),
        call('edit', { path: 'calc.js', edits: [{ oldText: 'a * b', newText: 'a - b' }] }),
        call('edit', { path: '../calc.js', edits: [{ oldText: 'a', newText: 'b' }] }),
      ],
      options,
    );
    expect(asked).toEqual([]);
    expect(results.map((r) => r.isError)).toEqual([true, true, true, false, true, true]);
    expect(results[0]?.content).toMatch(/has not been read in this session/);
    expect(results[1]?.content).toMatch(/has not been read in this session/);
    expect(results[4]?.content).toMatch(/oldText was not found/);
    expect(results[2]?.content).toMatch(/outside|workspace/i);
    expect(results[5]?.content).toMatch(/outside|workspace/i);
    // Recorded like any refusal: a result with the arguments, no approval event, never started.
    expect(events.filter((e) => e.type === 'approval').map((e) => e.body.toolName)).toEqual([
      'read',
    ]);
    expect(events.filter((e) => e.type === 'started').map((e) => e.toolName)).toEqual(['read']);
    expect(results[0]?.meta?.params).toEqual({
      path: 'calc.js',
      edits: [{ oldText: 'a + b', newText: 'a - b' }],
    });
    expect(readFileSync(join(ws, 'calc.js'), 'utf8')).toContain('a + b');
  });

  it('checks against what earlier calls of the batch did: read then edit, edit then edit', async () => {
    const { ws, runtime, asked, options } = setup();
    const results = await runtime.run(
      [
        call('read', { path: 'calc.js' }),
        call('edit', { path: 'calc.js', edits: [{ oldText: 'a + b', newText: 'a - b' }] }),
        call('edit', { path: 'calc.js', edits: [{ oldText: 'a - b', newText: 'b - a' }] }),
      ],
      options,
    );
    expect(results.map((r) => r.content)).toEqual([
      expect.any(String),
      expect.stringMatching(/^Edited calc.js/),
      expect.stringMatching(/^Edited calc.js/),
    ]);
    expect(asked.map((r) => r.toolName)).toEqual(['edit', 'edit']);
    expect(readFileSync(join(ws, 'calc.js'), 'utf8')).toContain('return b - a;');
  });
});
