// The README's example: @spine/memory used alone, by a harness with its own tool loop. Offline;
// run with `npx tsx packages/memory/examples/memory-alone.ts [dir]`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRememberTool, loadMemories, memoryFiles, renderMemorySection } from '@spine/memory';

const workspace = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'spine-memory-example-'));
const files = memoryFiles(workspace, { userFile: join(workspace, 'user-memory.md') });
const remember = createRememberTool({ files, sessionId: () => 'session-1' });
// Your loop runs the model's call, its arguments validated against remember.spec.parameters.
const result = await remember.execute(
  { fact: 'Tests run with npm test', scope: 'project' },
  { callId: 'c1', signal: AbortSignal.timeout(5_000), cwd: workspace, sandbox: 'workspace-write' },
);
console.log(result.content);
// The next session's system prompt carries the fact, with the session that remembered it.
console.log(renderMemorySection(loadMemories(files)));
