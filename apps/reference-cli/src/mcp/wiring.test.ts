import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from '@spine/agent-loop';
import { defaultConfig, type WiredMcp, wireMcp } from '@spine/harness';
import { createToolRuntime } from '@spine/tool-runtime';
import { describeElicitation, parseElicitationAnswer } from '@spine/tui';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** The part of an agent wireMcp touches: run/resume (servers start first) and step-start. */
class FakeAgent extends EventEmitter {
  runs: string[] = [];
  async run(input: string): Promise<unknown> {
    this.runs.push(input);
    return {};
  }
  async resume(): Promise<unknown> {
    return undefined;
  }
}

describe('wireMcp', () => {
  const wired: WiredMcp[] = [];
  afterAll(() => Promise.all(wired.map((entry) => entry.close())));

  it('starts servers before the first turn, registers their tools, and completes @server:uri', async () => {
    const config = {
      ...defaultConfig(process.env),
      // The session allows what the entry asks for (no bubblewrap needed here).
      sandbox: 'danger-full-access' as const,
      mcp: {
        servers: {
          everything: {
            command: process.execPath,
            args: [everything, 'stdio'],
            sandbox: 'danger-full-access',
          },
        },
      },
    };
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [],
      sandbox: 'workspace-write',
    });
    const agent = new FakeAgent();
    const warnings: string[] = [];
    const mcp = await wireMcp({
      config,
      cwd: process.cwd(),
      backend: undefined,
      runtime,
      agent: agent as unknown as Agent,
      warn: (message) => warnings.push(message),
    });
    wired.push(mcp);
    // Lazy: nothing is registered before a turn.
    expect(runtime.specs().some((spec) => spec.name.startsWith('mcp__'))).toBe(false);
    await (agent as unknown as Agent).run('hello');
    expect(agent.runs).toEqual(['hello']);
    expect(runtime.specs().map((spec) => spec.name)).toContain('mcp__everything__echo');
    expect(warnings).toEqual([]);
    expect(
      mcp.isResourceReference('everything:demo://resource/static/document/architecture.md'),
    ).toBe(true);
    expect(mcp.isResourceReference('src/index.ts')).toBe(false);
    expect(mcp.isResourceReference('other:thing')).toBe(false);
    // Resource URIs are listed in the background after the servers start.
    const deadline = Date.now() + 20_000;
    while (mcp.completeResource('everything:').length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const completions = mcp.completeResource('everything:');
    expect(completions.length).toBeGreaterThan(0);
    for (const entry of completions) expect(entry.startsWith('everything:')).toBe(true);
    expect(mcp.completeResource('nope:')).toEqual([]);
  }, 60_000);

  it('sends elicitation to the handler the REPL sets, and refuses it while none is set', async () => {
    const config = {
      ...defaultConfig(process.env),
      // The session allows what the entry asks for (no bubblewrap needed here).
      sandbox: 'danger-full-access' as const,
      mcp: {
        servers: {
          forms: {
            command: process.execPath,
            args: [everything, 'stdio'],
            sandbox: 'danger-full-access',
            elicitation: true,
          },
        },
      },
    };
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [],
      sandbox: 'workspace-write',
      approval: 'never-ask',
    });
    const agent = new FakeAgent();
    const mcp = await wireMcp({
      config,
      cwd: process.cwd(),
      backend: undefined,
      runtime,
      agent: agent as unknown as Agent,
      warn: () => {},
    });
    wired.push(mcp);
    await (agent as unknown as Agent).run('start');
    const call = {
      type: 'tool-call' as const,
      name: 'mcp__forms__trigger-elicitation-request',
      arguments: '{}',
    };
    const [refused] = await runtime.run([{ ...call, id: 'c1' }]);
    expect(refused?.content).toContain('only the interactive REPL asks the person');
    const questions: string[] = [];
    mcp.setElicitationHandler(async (request) => {
      questions.push(describeElicitation(request));
      return parseElicitationAnswer('decline', request);
    });
    const [answered] = await runtime.run([{ ...call, id: 'c2' }]);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('MCP server forms asks:');
    expect(answered?.isError).toBe(false);
    expect(answered?.content).toMatch(/decline/i);
  }, 60_000);

  it('never offers a resource URI with a control, escape or bidi character as a completion', async () => {
    const hostile = fileURLToPath(
      new URL('../../../../packages/mcp/test/servers/hostile.mjs', import.meta.url),
    );
    const spec = join(tmpdir(), `spine-wiring-hostile-${process.pid}.json`);
    writeFileSync(spec, JSON.stringify({ names: ['\u001b]0;owned\u0007', 'a\u202eb', 'plain'] }));
    const config = {
      ...defaultConfig(process.env),
      sandbox: 'danger-full-access' as const,
      mcp: {
        servers: {
          hostile: {
            command: process.execPath,
            args: [hostile],
            env: { HOSTILE_SPEC: spec },
            sandbox: 'danger-full-access',
          },
        },
      },
    };
    const runtime = createToolRuntime({
      cwd: process.cwd(),
      tools: [],
      sandbox: 'workspace-write',
    });
    const agent = new FakeAgent();
    const mcp = await wireMcp({
      config,
      cwd: process.cwd(),
      backend: undefined,
      runtime,
      agent: agent as unknown as Agent,
      warn: () => {},
    });
    wired.push(mcp);
    await (agent as unknown as Agent).run('start');
    const deadline = Date.now() + 20_000;
    while (mcp.completeResource('hostile:').length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mcp.completeResource('hostile:').sort()).toEqual([
      'hostile:file:///ok.txt',
      'hostile:file:///plain',
    ]);
  }, 60_000);
});
