// Child process of crash.test.ts: runs a parent turn whose subagent the test SIGKILLs mid-run.
import { createTree } from './harness.js';

const config = JSON.parse(process.argv[2] ?? '{}') as {
  baseUrl: string;
  sessionDir: string;
  workspace: string;
};
const { createOpenAICompatibleModel } = await import('@spine/llm');
const tree = await createTree({
  model: createOpenAICompatibleModel({
    baseUrl: config.baseUrl,
    apiKey: 'test-key',
    provider: 'deepseek',
  }),
  workspace: config.workspace,
  sessionDir: config.sessionDir,
  task: { onProgress: (event) => process.stdout.write(`child ${event.type}\n`) },
});
process.stdout.write(`session ${tree.session.id}\n`);
const result = await tree.agent.run('[[parent]] investigate');
process.stdout.write(`done ${result.reason}\n`);
process.exit(0);
