import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssistantMessageBody, UserMessageBody } from '@spine/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createEnvironmentContribution, type RequestHeaderBody } from '../src/index.js';
import { createHarness, type Harness, replayThenClose, wireMessages } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

describe('context assembly end to end', () => {
  it('writes a runtime-context message only when the git branch changes, without breaking the prefix', async () => {
    harness = await createHarness({
      replies: [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
    });
    mkdirSync(join(harness.workspace, '.git'));
    writeFileSync(join(harness.workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    harness.prompt.register(
      createEnvironmentContribution({
        cwd: harness.workspace,
        now: () => new Date('2026-11-30T10:00:00Z'),
      }),
    );
    await harness.agent.run('First.');
    await harness.agent.run('Second.');
    writeFileSync(join(harness.workspace, '.git', 'HEAD'), 'ref: refs/heads/feature/parser\n');
    await harness.agent.run('Third.');
    const contexts = harness
      .events('user/message')
      .map((event) => event.body as UserMessageBody)
      .filter((body) => body.source === 'runtime-context');
    expect(contexts).toHaveLength(2);
    expect(contexts[0]?.content).toContain('git-branch: main');
    expect(contexts[1]?.content).toBe(
      '<runtime-context changed="git-branch">\ngit-branch: feature/parser\n</runtime-context>',
    );
    const third = wireMessages(harness.server.requests[2]!);
    expect(third.at(-1)?.content).toContain('feature/parser');
    const headers = harness
      .events('request/header')
      .map((event) => event.body as RequestHeaderBody);
    expect(headers[2]?.prefix).toMatchObject({
      extends: true,
      causes: ['runtime-context-inserted'],
    });
    expect(headers[1]?.prefix.causes).toEqual([]);
    harness.replayOk();
  });

  it('streams reasoning live, keeps it in the assistant message, and records a model switch', async () => {
    harness = await createHarness({
      replies: [{ reasoning: 'The user wants a greeting.', text: 'Hello!' }, { text: 'Hi again.' }],
    });
    const reasoning: string[] = [];
    harness.agent.on('reasoning-delta', ({ text }) => reasoning.push(text));
    await harness.agent.run('Greet me.');
    expect(reasoning.join('')).toBe('The user wants a greeting.');
    const message = harness.events('assistant/message')[0]?.body as AssistantMessageBody;
    expect(message.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    harness.agent.setModel(harness.model, 'deepseek-v4-pro', 1_000_000);
    await harness.agent.run('Again.');
    const headers = harness
      .events('request/header')
      .map((event) => event.body as RequestHeaderBody);
    expect(headers[1]).toMatchObject({
      model: 'deepseek-v4-pro',
      prefix: { extends: false, causes: ['model-changed'] },
    });
    expect((harness.server.requests[1]!.body as { model: string }).model).toBe('deepseek-v4-pro');
    harness.replayOk();
  });
});
