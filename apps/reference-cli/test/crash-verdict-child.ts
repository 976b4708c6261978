// Child process of crash-verdicts.test.ts: runs one real tool call (write, edit or bash through
// the real tool runtime) and is killed with SIGKILL at a random moment by the test.
// Usage: node child.mjs <write|edit|bash> <workspace> <file holding the arguments JSON>
import { readFileSync } from 'node:fs';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';

const [tool, workspace, argsFile] = process.argv.slice(2) as [string, string, string];
const args = readFileSync(argsFile, 'utf8');
const runtime = createToolRuntime({
  cwd: workspace,
  tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: null }),
  approval: 'never-ask',
  sandbox: 'danger-full-access',
  sandboxBackend: null,
});
if (tool !== 'bash') {
  const path = (JSON.parse(args) as { path: string }).path;
  await runtime.run([
    { type: 'tool-call', id: 'read', name: 'read', arguments: JSON.stringify({ path }) },
  ]);
}
process.stdout.write('ready\n');
const [result] = await runtime.run([
  { type: 'tool-call', id: 'call', name: tool, arguments: args },
]);
process.stdout.write(`done ${result?.outcome}\n`);
