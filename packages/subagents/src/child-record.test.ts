import type { SessionEvent } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childChanges, usageWithChildren } from './child-record.js';

let seq = 0;
const event = (type: string, body: unknown): SessionEvent => ({ seq: ++seq, type, at: '', body });

describe('childChanges', () => {
  it("counts the files a crashed command's verified result lists, even though it is an error", () => {
    const events = [
      event('tool/started', {
        toolCallId: 'v',
        toolName: 'bash',
        arguments: '{"command":"make"}',
      }),
      event('tool/result', {
        toolCallId: 'v',
        toolName: 'bash',
        content: 'verified …',
        isError: true,
        outcome: 'aborted',
        meta: {
          verifiedAfterCrash: true,
          changedFiles: ['added out/a b.txt', 'deleted old.txt', 'modified old.txt', 7, 'odd'],
        },
      }),
      // Without the verification mark, a listing is not taken as evidence.
      event('tool/result', {
        toolCallId: 'w',
        toolName: 'bash',
        content: 'x',
        isError: false,
        meta: { changedFiles: ['added forged.txt'] },
      }),
    ];
    expect(childChanges(events)).toEqual({ files: ['out/a b.txt', 'old.txt'], commands: ['make'] });
  });

  it('counts a file change only when its result is not an error, and every command that started', () => {
    const events = [
      event('tool/started', {
        toolCallId: 'a',
        toolName: 'write',
        arguments: '{"path":"a.ts","content":"x"}',
      }),
      event('tool/result', { toolCallId: 'a', toolName: 'write', content: 'ok', isError: false }),
      event('tool/started', {
        toolCallId: 'b',
        toolName: 'edit',
        arguments: '{"path":"b.ts","edits":[]}',
      }),
      event('tool/result', { toolCallId: 'b', toolName: 'edit', content: 'no', isError: true }),
      event('tool/started', {
        toolCallId: 'c',
        toolName: 'bash',
        arguments: '{"command":"npm test"}',
      }),
      event('tool/result', { toolCallId: 'c', toolName: 'bash', content: 'fail', isError: true }),
      event('tool/started', {
        toolCallId: 'd',
        toolName: 'edit',
        arguments: '{"path":"a.ts","edits":[]}',
      }),
      event('tool/result', { toolCallId: 'd', toolName: 'edit', content: 'ok', isError: false }),
      event('agent/child/end', {
        sessionId: 's',
        toolCallId: 'x',
        reason: 'completed',
        files: ['c.ts', 'a.ts'],
        commands: ['ls'],
      }),
    ];
    expect(childChanges(events)).toEqual({ files: ['a.ts', 'c.ts'], commands: ['npm test', 'ls'] });
  });

  it('never throws on arbitrary recorded arguments and reports only string paths and commands', () => {
    const name = fc.constantFrom('write', 'edit', 'bash', 'read', 'other');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.oneof(fc.string(), fc.json()), fc.boolean()), { maxLength: 12 }),
        (calls) => {
          const events = calls.flatMap(([toolName, args, isError], index) => [
            event('tool/started', { toolCallId: `c${index}`, toolName, arguments: args }),
            event('tool/result', { toolCallId: `c${index}`, toolName, content: '', isError }),
          ]);
          const changes = childChanges(events);
          for (const file of changes.files) expect(typeof file).toBe('string');
          for (const command of changes.commands) expect(typeof command).toBe('string');
          expect(new Set(changes.files).size).toBe(changes.files.length);
          expect(changes.commands.length).toBeLessThanOrEqual(
            calls.filter(([n]) => n === 'bash').length,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('usageWithChildren', () => {
  it('adds each child’s reported usage to the session’s own', () => {
    const usage = (n: number) => ({
      inputTokens: n,
      cacheReadTokens: n,
      cacheWriteTokens: 0,
      outputTokens: 1,
      costUsd: n / 1000,
    });
    const events = [
      event('assistant/message', { content: [], finishReason: 'stop', usage: usage(10) }),
      event('agent/child/end', {
        sessionId: 's',
        toolCallId: 'x',
        reason: 'completed',
        usage: usage(5),
      }),
      event('agent/child/end', { sessionId: 't', toolCallId: 'y', reason: 'unknown' }),
    ];
    expect(usageWithChildren(events)).toEqual({
      inputTokens: 15,
      cacheReadTokens: 15,
      cacheWriteTokens: 0,
      outputTokens: 2,
      costUsd: 0.015,
    });
  });
});
