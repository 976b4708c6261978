// Prefix stability over a scripted 200-step session without compaction: every request's
// messages must extend the previous request's unchanged (checked on the wire bytes the server
// received), and the server's DeepSeek-style prefix-cache emulation must report ≥ 95 % of
// prompt tokens as cache hits. Baseline in the same run: the same session with a system prompt
// that carries the step number (a common mistake), to show what breaking the prefix costs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedReply } from '@spine/test-utils';
import { type AttemptBody, type RequestHeaderBody, replay } from '../src/index.js';
import { createHarness } from '../test/harness.js';

const STEPS = 200;

async function session(breakPrefix: boolean) {
  const replies: ScriptedReply[] = [];
  for (let i = 0; i < STEPS; i++) {
    replies.push({
      toolCalls: [
        {
          id: `call_${i}`,
          name: 'read',
          arguments: JSON.stringify({ path: `src/file${i % 10}.ts` }),
        },
      ],
    });
  }
  replies.push({ text: 'All files reviewed.' });
  const harness = await createHarness({ replies, promptCache: true, maxSteps: STEPS + 5 });
  try {
    mkdirSync(join(harness.workspace, 'src'), { recursive: true });
    for (let i = 0; i < 10; i++) {
      writeFileSync(
        join(harness.workspace, 'src', `file${i}.ts`),
        `export const value${i} = ${i};\n// module ${i}\n`,
      );
    }
    let step = 0;
    if (breakPrefix) {
      harness.prompt.register({
        id: 'clock',
        sections: [{ id: 'clock', text: 'Step counter: {{step}}' }],
        variables: () => ({ step: String(step++) }),
      });
    }
    const started = performance.now();
    const result = await harness.agent.run('Review every file under src/ one by one.');
    const elapsed = performance.now() - started;
    if (result.reason !== 'completed')
      throw new Error(`session ended with ${result.reason}: ${result.error?.message}`);
    const requests = harness.server.requests;
    let extended = 0;
    for (let i = 1; i < requests.length; i++) {
      const before = (requests[i - 1]!.body as { messages: unknown[] }).messages;
      const after = (requests[i]!.body as { messages: unknown[] }).messages;
      const same = before.every(
        (message, index) => JSON.stringify(message) === JSON.stringify(after[index]),
      );
      if (same && after.length > before.length) extended++;
    }
    let hit = 0;
    let miss = 0;
    for (const event of harness.session.events()) {
      if (event.type !== 'assistant/attempt') continue;
      const body = event.body as AttemptBody;
      hit += body.cacheHitTokens ?? 0;
      miss += body.cacheMissTokens ?? 0;
    }
    const headers = harness.session
      .events()
      .filter((event) => event.type === 'request/header')
      .map((event) => event.body as RequestHeaderBody);
    const attributed = headers
      .filter((header) => !header.prefix.extends)
      .map((header) => header.prefix.causes.join('+'));
    const report = replay(harness.session, { model: harness.model });
    return {
      requests: requests.length,
      extendedShare: extended / (requests.length - 1),
      cacheHitShare: hit / (hit + miss),
      brokenPrefixCauses: [...new Set(attributed)],
      replayOk: report.ok && report.requests.length === requests.length,
      msPerStep: elapsed / requests.length,
    };
  } finally {
    await harness.close();
  }
}

const stable = await session(false);
console.log(
  `stable prompt: ${stable.requests} requests, ${(stable.extendedShare * 100).toFixed(1)} % extend the previous, ${(stable.cacheHitShare * 100).toFixed(1)} % cache-hit tokens, ${stable.msPerStep.toFixed(1)} ms/step`,
);
const broken = await session(true);
console.log(
  `baseline (step number in the system prompt): ${(broken.cacheHitShare * 100).toFixed(1)} % cache-hit tokens, causes recorded: ${broken.brokenPrefixCauses.join(', ')}`,
);
console.log(
  JSON.stringify({
    bench: 'agent-loop/prefix-stability',
    steps: stable.requests,
    extendedShare: Number(stable.extendedShare.toFixed(4)),
    cacheHitShare: Number(stable.cacheHitShare.toFixed(4)),
    baselineCacheHitShare: Number(broken.cacheHitShare.toFixed(4)),
    baselineCauses: broken.brokenPrefixCauses,
    replayOk: stable.replayOk,
    pass: stable.extendedShare === 1 && stable.cacheHitShare >= 0.95 && stable.replayOk,
  }),
);
