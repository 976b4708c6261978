// Runs background jobs through the real bash tool under real bubblewrap and prints what happened
// as JSON on the last line: a server a job started on 127.0.0.1 polled by a later command, and the
// job killed. Run by jobs-unprivileged.test.ts as an unprivileged user through `setpriv`
// (argv[2]: the workspace, argv[3]: the directory for the jobs' output).
import {
  createJobManager,
  createToolRuntime,
  createWorkspaceTools,
  detectSandbox,
} from '../src/index.js';
import { runOne } from './helpers.js';

const [workspace, jobsDir] = process.argv.slice(2) as [string, string];
const backend = await detectSandbox();
const jobs = createJobManager({ dir: jobsDir });
const runtime = createToolRuntime({
  cwd: workspace,
  sandbox: 'workspace-write',
  approval: 'never-ask',
  tools: createWorkspaceTools({
    cwd: workspace,
    jobs,
    ...(backend ? { sandboxBackend: backend } : {}),
  }),
});
const server = `exec node -e "require('http').createServer((q,s)=>s.end('pong '+process.getuid())).listen(8766,'127.0.0.1',()=>console.log('listening'))"`;
const started = await runOne(runtime, 'bash', { command: server, run_in_background: true });
let seen = started.content;
for (let i = 0; i < 100 && !seen.includes('listening'); i++) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  seen += (await runOne(runtime, 'job_output', { id: 'job-1' })).content;
}
const poll = await runOne(runtime, 'bash', {
  command: `exec 3<>/dev/tcp/127.0.0.1/8766 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 | tail -1`,
});
const killed = await runOne(runtime, 'job_kill', { id: 'job-1' });
await jobs.close();
console.log(
  JSON.stringify({
    uid: process.getuid?.(),
    userNamespace: backend?.info.userNamespace,
    started: started.content,
    seen,
    poll: poll.content,
    killed: killed.content,
  }),
);
