import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  findNonJson,
  ToolApprovalBodySchema,
  ToolResultBodySchema,
  type ToolRunEvent,
  ToolStartedBodySchema,
} from '@spine/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolRuntime, createWorkspaceTools } from '../src/index.js';
import { makeTempDir, toolCall } from './helpers.js';

const temp = makeTempDir('spine-bodies-');
afterAll(() => temp.cleanup());

describe('what the session log receives', () => {
  it('every approval, started and result body is plain JSON that passes the protocol schemas', async () => {
    writeFileSync(join(temp.dir, 'a.txt'), 'one\ntwo\n');
    const runtime = createToolRuntime({
      cwd: temp.dir,
      tools: createWorkspaceTools({ cwd: temp.dir }),
      approval: 'ask',
      rules: [{ tool: 'bash', argument: 'command', prefix: 'rm', decision: 'deny' }],
    });
    const calls = [
      toolCall('read', { path: 'a.txt' }),
      toolCall('edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] }),
      toolCall('grep', { pattern: 'TWO' }),
      toolCall('bash', { command: 'cat a.txt; exit 2' }),
      toolCall('bash', { command: 'rm a.txt' }),
      toolCall('read', { path: '../outside' }),
      toolCall('nope', {}),
      toolCall('read', '{broken'),
      toolCall('bash', {
        command: 'true',
        escalation: { justification: 'why not', permissions: { network: true } },
      }),
    ];
    const events: ToolRunEvent[] = [];
    const results = await runtime.run(calls, {
      onEvent: (event) => events.push(event),
      approve: async () => 'once',
    });
    expect(results).toHaveLength(calls.length);
    for (const event of events) {
      if (event.type === 'progress') continue;
      const body =
        event.type === 'started'
          ? { toolCallId: event.toolCallId, toolName: event.toolName, arguments: event.arguments }
          : event.body;
      expect(findNonJson(body), JSON.stringify(body)).toBeUndefined();
      if (event.type === 'approval') ToolApprovalBodySchema.parse(event.body);
      if (event.type === 'started') ToolStartedBodySchema.parse(body);
      if (event.type === 'result') ToolResultBodySchema.parse(event.body);
    }
    expect(results.map((result) => result.outcome)).toEqual([
      'ok',
      'ok',
      'ok',
      'error',
      'denied',
      'error',
      'not-found',
      'invalid',
      'ok',
    ]);
    expect(results[3]!.meta).toMatchObject({ exitCode: 2, sandbox: 'bwrap' });
    const escalated = events.find(
      (event) => event.type === 'approval' && event.body.escalation !== undefined,
    );
    expect(escalated).toMatchObject({
      body: {
        by: 'user',
        escalation: { justification: 'why not', permissions: { network: true } },
      },
    });
  });
});
