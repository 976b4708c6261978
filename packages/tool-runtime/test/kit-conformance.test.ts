// Spine's ToolRuntime runs the published ToolScheduler kit (one test per case), and a
// deliberately broken scheduler shows that the kit fails with messages that say what went wrong.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition, ToolResultBody, ToolScheduler } from '@spine/protocol';
import { checkToolScheduler, toolSchedulerConformanceCases } from '@spine/tool-runtime/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'spine-kit-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const spine = {
  scheduler: (tools: readonly ToolDefinition<never>[]) =>
    createToolRuntime({ cwd, tools: [...tools], approval: 'ask', sandboxBackend: null }),
};

describe('@spine/tool-runtime/testing kit: createToolRuntime', () => {
  for (const c of toolSchedulerConformanceCases) it(c.name, () => c.run(spine));
});

/**
 * A broken scheduler: it starts every call at once and commits results in finish order, never
 * validates arguments or asks for approval, answers unknown tools as if they had worked, lets
 * a throwing tool's error escape and gives tools a signal of its own instead of the caller's.
 */
function brokenScheduler(tools: readonly ToolDefinition<never>[]): ToolScheduler {
  return {
    specificationVersion: 1,
    specs: () => tools.map((tool) => tool.spec),
    async run(calls, options = {}) {
      const results: ToolResultBody[] = [];
      const commit = (body: ToolResultBody) => {
        results.push(body);
        options.onEvent?.({ type: 'result', body });
      };
      await Promise.all(
        calls.map(async (c) => {
          const base = { toolCallId: c.id, toolName: c.name };
          const tool = tools.find((t) => t.spec.name === c.name);
          if (!tool) return commit({ ...base, content: 'done', isError: false });
          let args: never;
          try {
            args = JSON.parse(c.arguments) as never;
          } catch {
            return commit({ ...base, content: 'bad JSON', isError: true, outcome: 'invalid' });
          }
          options.onEvent?.({ type: 'started', ...base, arguments: c.arguments });
          const signal = new AbortController().signal;
          const output = await tool.execute(args, {
            callId: c.id,
            signal,
            cwd,
            sandbox: 'workspace-write',
          });
          commit({ ...base, content: output.content, isError: false });
        }),
      );
      return results;
    },
  };
}

describe('@spine/tool-runtime/testing kit: a broken scheduler', () => {
  it('fails the cases it breaks, each with a message saying what was expected', {
    timeout: 60_000,
  }, async () => {
    const report = await checkToolScheduler({ scheduler: brokenScheduler }, { timeoutMs: 20_000 });
    expect(report.ok).toBe(false);
    const messages = Object.fromEntries(report.failed.map((f) => [f.name, f.message]));
    expect(report.passed).toBe(1); // concurrency-safe calls do overlap
    expect(messages).toEqual({
      'commits results and result events in call order, whatever order the calls finish in':
        'ordering: expected one result per call in call order ["c1","c2","c3"], got ["c2","c3","c1"]',
      'runs calls that are not concurrency-safe one at a time':
        'serial calls: expected unsafe calls to run one at a time, but 3 ran at once',
      'on abort, stops running calls through their signal and still gives every call a result':
        'abort: expected one result per call in call order ["w1","w2"], got ["w2","w1"]',
      'answers a call of an unknown tool with an error result':
        'unknown tool: expected an error result (isError true), got "done"',
      'answers invalid arguments with an error result without running the tool':
        'invalid arguments: expected one result per call in call order ["i1","i2","i3"], got ["i2","i1","i3"]',
      'asks before a tool that executes and does not run it when the answer is deny':
        'approval denial: expected approve() to be asked once about a1/kit_exec, got []',
      'turns a tool that throws into an error result the model can read':
        'throwing tool: expected run() to resolve with error results, but it threw Error: kaboom from kit_explode',
    });
  });
});
