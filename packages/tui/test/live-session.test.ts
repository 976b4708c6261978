// The live output, the turn summary, the status line and the /context report of a real agent
// session (@spine/harness's startAgentSession) against a scripted model server on 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { childMonitorFor, loadConfig, startAgentSession } from '@spine/harness';
import { createScriptedModelServer } from '@spine/llm/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  attachLiveOutput,
  contextReport,
  describeTurnEnd,
  statusLine,
  styleFor,
} from '../src/index.js';

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stream that keeps what is written to it. */
function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { stream, text: () => text };
}

describe('a live agent session on a terminal', () => {
  it('streams the answer and tool lines with escapes made visible, then the status line and /context', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'spine-tui-live-'));
    created.push(workspace);
    writeFileSync(join(workspace, 'notes.md'), 'Build with `npm run build`.\n');
    const server = await createScriptedModelServer({
      replies: [
        {
          text: 'Reading the notes.',
          toolCalls: [{ name: 'read', arguments: JSON.stringify({ path: 'notes.md' }) }],
        },
        {
          text: 'Run `npm run build`.\u001b[2J',
          usage: { promptTokens: 4000, cacheHitTokens: 3000, completionTokens: 10 },
        },
      ],
    });
    const { config } = loadConfig({
      cwd: workspace,
      env: {
        ...process.env,
        OPENAI_API_KEY: 'loopback',
        SPINE_CONFIG_HOME: join(workspace, 'config-home'),
      },
      flags: {
        model: 'openai-compatible/deepseek-v4-flash',
        baseUrl: server.baseUrl,
        sessionDir: join(workspace, 'sessions'),
      },
    });
    const active = await startAgentSession({ config, cwd: workspace, lsp: false, web: false });
    const text = collector();
    const notices = collector();
    const plain = styleFor({ isTTY: false });
    const detach = attachLiveOutput(
      active.agent,
      { text: text.stream, notices: notices.stream },
      plain,
    );
    try {
      const result = await active.agent.run('What is the build command?', {
        signal: AbortSignal.timeout(60_000),
      });
      expect(describeTurnEnd(result)).toBe('completed in 2 steps');
      expect(text.text()).toBe('Reading the notes.\nRun `npm run build`.\\x1b[2J\n');
      expect(notices.text()).toBe(
        '  → read path=notes.md\n  ✓ read 1 Build with `npm run build`.\n',
      );
      expect(statusLine(active, plain)).toMatch(
        // The last request's prompt: 4,000 tokens, 3,000 from the cache; 10 output tokens.
        /^openai-compatible\/deepseek-v4-flash · context of next request 4\.0k\/\d+(\.\d)?[kM] \(\d+%\) · cache hit of last request 75% \(3\.0k tokens\) · cost \$\d\.\d{4} this session · sandbox workspace-write$/,
      );
      // A subagent running (as the task tool reports it to the session's monitor) is listed.
      childMonitorFor(active.session).onProgress({
        type: 'start',
        child: { sessionId: 'child-1', profile: { name: 'finder' }, description: 'look' },
      } as never);
      expect(statusLine(active, plain)).toMatch(/ · subagents running: \[finder #1\]$/);
      const report = contextReport(active);
      expect(report).toContain(
        `context of ${active.session.id} (openai-compatible/deepseek-v4-flash):`,
      );
      expect(report).toMatch(/\n {2}tools +\d+(\.\d)?k? {2}\d+: .*\bread\b/);
      expect(report).toMatch(/\n {2}messages +\d+ {2}4 on the surface/);
      expect(report).toMatch(/\n {2}total +\d+(\.\d)?k? {2}\d+% of /);
    } finally {
      detach();
      await active.finish('test done');
      await server.close();
    }
  }, 120_000);
});
