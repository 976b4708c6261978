import { afterAll, describe, expect, it } from 'vitest';
import { type AnthropicServer, createAnthropicServer } from './anthropic-server.js';
import { exampleWorkspace, isolatedEnv, runCli } from './run-cli.js';

const KEY = 'sk-ant-loopback-0123456789';

describe('spine run when an Anthropic answer stops short', { timeout: 60_000 }, () => {
  const servers: AnthropicServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  async function runWith(stopReason: string, text: string) {
    const server = await createAnthropicServer({ apiKey: KEY, replies: [{ text, stopReason }] });
    servers.push(server);
    const { env } = isolatedEnv({ ANTHROPIC_API_KEY: KEY });
    const cwd = exampleWorkspace('spine-anthropic-');
    const args = ['--model', 'anthropic/claude-sonnet-4-5', '--base-url', server.baseUrl];
    return runCli(['run', ...args, '--cwd', cwd, 'explain everything'], { env });
  }

  it('says when the answer was cut at max_tokens instead of passing it off as complete', async () => {
    const cut = await runWith('max_tokens', 'The first half of a long expla');
    expect(cut.code).toBe(0);
    expect(cut.stdout).toContain('The first half of a long expla');
    expect(cut.stderr).toContain(
      'the answer was cut at the output-token limit; ask the model to continue (finish reason length)',
    );
  });

  it('says when the model refused, and prints nothing extra for a normal end_turn', async () => {
    const refused = await runWith('refusal', 'I can’t help with that.');
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('the model declined to answer (refusal)');
    const normal = await runWith('end_turn', 'All explained.');
    expect(normal.code).toBe(0);
    expect(normal.stderr).not.toContain('finish reason');
  });
});
