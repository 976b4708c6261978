import type { ToolExecutionContext } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/engine.js';
import { createRecallHistoryTool } from '../src/recall-history.js';
import { createTokenMeter } from '../src/token-meter.js';
import { scriptedSummarizer } from './doubles.js';
import { filler, newSession, say, toolStep } from './history.js';

const CONSTRAINTS = [
  'Never run the migration on prod.',
  'Always use pnpm, not npm, in this repository.',
  'Do not commit anything under vendor/.',
  'Never print the contents of .env files.',
  'Only touch files under packages/billing.',
  'Avoid adding new runtime dependencies.',
  'Make sure every public function keeps its TSDoc.',
  'Do not change the database schema version (it must stay 42).',
  'Never force-push to the release branch.',
  'Keep the public API of InvoiceService backwards compatible; do not rename its methods.',
];
const PATHS = Array.from(
  { length: 10 },
  (_, index) => `packages/billing/src/invoice-rule-${index + 1}.ts`,
);
const ERRORS = Array.from(
  { length: 10 },
  (_, index) =>
    `Error: ETIMEDOUT connecting to ledger-${index + 1}.internal:7${index}00 after 3000ms`,
);

const context: ToolExecutionContext = {
  callId: 'recall',
  signal: new AbortController().signal,
  cwd: '/work/project',
  sandbox: 'read-only',
};

describe('fact retention across compactions', () => {
  it('keeps at least 29 of 30 planted facts visible or recallable after three compactions in 300 steps', async () => {
    const session = await newSession();
    const engine = createCompactionEngine({
      meter: createTokenMeter(),
      summarizer: scriptedSummarizer(),
    });
    const planted: { fact: string; seq: number; path?: string }[] = [];
    let compactions = 0;
    const system = 'You are a coding agent.';
    for (let step = 1; step <= 300; step++) {
      const turn = Math.ceil(step / 30);
      const stepInTurn = step - (turn - 1) * 30;
      if (stepInTurn === 1) {
        const constraint = CONSTRAINTS[turn - 1] as string;
        const seq = say(session, `Turn ${turn}: continue the billing refactor. ${constraint}`, {
          turn,
        });
        planted.push({ fact: constraint, seq });
      }
      const outcome = await engine.compact({
        session,
        reason: 'pressure',
        contextWindow: 12_000,
        system,
        tools: [],
        turn,
        step: stepInTurn,
      });
      if (outcome.status === 'compacted') compactions++;
      expect(['compacted', 'not-needed']).toContain(outcome.status);
      const where = { turn, step: stepInTurn };
      if (step % 30 === 10) {
        const path = PATHS[turn - 1] as string;
        toolStep(
          session,
          { id: `edit-${step}`, name: 'edit_file', args: { path } },
          'applied 1 edit',
          where,
        );
        planted.push({ fact: path, seq: session.lastSeq, path });
      } else if (step % 30 === 20) {
        const error = ERRORS[turn - 1] as string;
        toolStep(
          session,
          {
            id: `test-${step}`,
            name: 'run_command',
            args: { command: `npm run test:ledger -- --shard ${turn}` },
          },
          `${error}\n    at connect (net.js:1:1)`,
          {
            ...where,
            exitCode: 1,
          },
        );
        planted.push({ fact: error, seq: session.lastSeq });
      } else if (step % 2 === 0) {
        toolStep(
          session,
          { id: `grep-${step}`, name: 'grep', args: { pattern: `rule${step % 7}` } },
          filler(110, step),
          where,
        );
      } else {
        const path = `packages/billing/src/common-${step % 5}.ts`;
        toolStep(
          session,
          { id: `read-${step}`, name: 'read_file', args: { path } },
          filler(110, step),
          where,
        );
      }
    }
    expect(compactions).toBeGreaterThanOrEqual(3);
    expect(planted).toHaveLength(30);

    const visible = session
      .deriveMessages()
      .messages.map((message) =>
        message.role === 'assistant' ? JSON.stringify(message.content) : message.content,
      )
      .join('\n');
    const recall = createRecallHistoryTool({ session });
    let retained = 0;
    for (const item of planted) {
      if (visible.includes(item.fact)) {
        retained++;
        continue;
      }
      const output = await recall.execute(
        item.path ? { path: item.path } : { seq: item.seq },
        context,
      );
      if (output.content.includes(item.fact)) retained++;
    }
    expect(retained).toBeGreaterThanOrEqual(29);
    const inCheckpointOnly = planted.filter((item) => visible.includes(item.fact)).length;
    expect(inCheckpointOnly).toBeGreaterThanOrEqual(29);
  });
});
