import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { TimelineRenderer } from './timeline.js';

const at = '2026-11-30T09:00:00.000Z';
const event = (seq: number, type: string, body: unknown): SessionEvent => ({
  seq,
  type,
  at,
  turn: 1,
  step: 1,
  body,
});

describe('the timeline renders what an auditor needs from each event', () => {
  it('shows an edit as a word diff, the approval with who and which rule, and the sandbox', () => {
    const timeline = new TimelineRenderer((id) => `${id}.html`);
    const edit = JSON.stringify({
      path: 'src/add.js',
      edits: [{ oldText: 'return a - b;', newText: 'return a + b;' }],
    });
    const call = timeline.render(
      event(4, 'assistant/message', {
        content: [{ type: 'tool-call', id: 'c1', name: 'edit', arguments: edit }],
        finishReason: 'tool-calls',
      }),
    );
    expect(call).toContain('<del>-</del><ins>+</ins>');
    expect(call).toContain('id="seq-4"');
    const approval = timeline.render(
      event(5, 'tool/approval', {
        toolCallId: 'c1',
        toolName: 'edit',
        decision: 'allow',
        by: 'policy',
        scope: 'rule',
        reason: 'auto-edit',
      }),
    );
    expect(approval).toContain('by policy (rule) — auto-edit');
    const result = timeline.render(
      event(6, 'tool/result', {
        toolCallId: 'c1',
        toolName: 'edit',
        content: 'Edited src/add.js',
        isError: false,
        meta: { sandbox: 'workspace-write', durationMs: 12 },
      }),
    );
    expect(result).toContain('sandbox workspace-write');
    expect(result).toContain('12 ms');
  });

  it('marks an interrupted call and shows its verified outcome, and a retry with its cause', () => {
    const timeline = new TimelineRenderer((id) => `${id}.html`);
    const verdict = 'This write was applied. src/a.js has the content this call meant to leave.';
    const html = timeline.render(
      event(7, 'tool/result', {
        toolCallId: 'c2',
        toolName: 'write',
        content: verdict,
        isError: true,
        outcome: 'unknown',
      }),
    );
    expect(html).toContain('interrupted call');
    expect(html).toContain(verdict);
    const retry = timeline.render(
      event(8, 'llm/retry', {
        failedAttempt: 1,
        nextAttempt: 2,
        delayMs: 1500,
        reason: 'rate limited',
        code: 'RATE_LIMITED',
      }),
    );
    expect(retry).toContain('attempt 1 → 2 after 1,500 ms: rate limited (RATE_LIMITED)');
  });

  it('folds a large output with its byte count and links subagents', () => {
    const timeline = new TimelineRenderer((id) => `/s/${id}`);
    const html = timeline.render(
      event(9, 'tool/result', {
        toolCallId: 'c3',
        toolName: 'bash',
        content: 'é'.repeat(3000),
        isError: false,
      }),
    );
    expect(html).toContain('show all 5.9 KB (6000 bytes)');
    const child = timeline.render(
      event(10, 'agent/child/start', {
        sessionId: 'kid',
        toolCallId: 't1',
        profile: 'explore',
        description: 'look around',
        depth: 1,
      }),
    );
    expect(child).toContain('href="/s/kid"');
    expect(timeline.children).toEqual([
      { sessionId: 'kid', profile: 'explore', description: 'look around', seq: 10 },
    ]);
  });
});
