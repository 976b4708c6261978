// `bash` running `true` under the hardened bubblewrap sandbox (workspace-write: user namespace with
// a non-zero uid, no capabilities, read-only kernel knobs, protected paths, the seccomp program)
// against the same tool without a sandbox (danger-full-access): same code path, only the sandbox
// differs. Targets: 1.5x with the pre-started sandbox, 4x cold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallPart } from '@spine/protocol';
import {
  createBwrapSandbox,
  createToolRuntime,
  createWorkspaceTools,
  detectSandbox,
} from '../src/index.js';

const RUNS = 40;
const backend = await detectSandbox();
if (!backend) {
  console.log('bubblewrap is not available; install it (apt-get install bubblewrap)');
  console.log(
    JSON.stringify({
      bench: 'tool-runtime/sandbox',
      error: 'bubblewrap not available',
      pass: false,
    }),
  );
  process.exit(1);
}
const cwd = mkdtempSync(join(tmpdir(), 'spine-bench-sandbox-'));
const tools = createWorkspaceTools({ cwd, sandboxBackend: backend });
const sandboxed = createToolRuntime({
  cwd,
  tools,
  sandbox: 'workspace-write',
  approval: 'never-ask',
  sandboxBackend: backend,
});
const open = createToolRuntime({
  cwd,
  tools,
  sandbox: 'danger-full-access',
  approval: 'never-ask',
  sandboxBackend: backend,
});
// The same bwrap backend without pre-started sandboxes, to show the cold cost too.
const coldBackend = createBwrapSandbox({ path: backend.info.path, prewarm: false });
const cold = createToolRuntime({
  cwd,
  tools: createWorkspaceTools({ cwd, sandboxBackend: coldBackend }),
  sandbox: 'workspace-write',
  approval: 'never-ask',
  sandboxBackend: coldBackend,
});
const call: ToolCallPart = {
  type: 'tool-call',
  id: 't',
  name: 'bash',
  arguments: JSON.stringify({ command: 'true' }),
};

async function timed(runtime: typeof open, expected: string): Promise<number> {
  const started = performance.now();
  const [result] = await runtime.run([call]);
  const elapsed = performance.now() - started;
  if (result?.isError || result?.meta?.sandbox !== expected)
    throw new Error(`bash true failed: ${JSON.stringify(result)}`);
  return elapsed;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const plain: number[] = [];
const bwrap: number[] = [];
const bwrapCold: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    plain.push(await timed(open, 'none'));
    bwrap.push(await timed(sandboxed, 'bwrap'));
    bwrapCold.push(await timed(cold, 'bwrap'));
    if ((run + 1) % 10 === 0)
      console.log(
        `run ${run + 1}/${RUNS}: unsandboxed ${plain.at(-1)!.toFixed(1)} ms, bwrap ${bwrap.at(-1)!.toFixed(1)} ms`,
      );
  }
} finally {
  backend.close?.();
  rmSync(cwd, { recursive: true, force: true });
}
// Interleaved runs see the same machine load; the median is the figure, the minimum is shown too.
// The default backend parks the next sandbox ahead of time; the cold figure starts bwrap per call.
const ratio = median(bwrap) / median(plain);
console.log(
  JSON.stringify({
    bench: 'tool-runtime/sandbox',
    runs: RUNS,
    unsandboxedMs: Number(median(plain).toFixed(2)),
    bwrapMs: Number(median(bwrap).toFixed(2)),
    unsandboxedMinMs: Number(Math.min(...plain).toFixed(2)),
    bwrapMinMs: Number(Math.min(...bwrap).toFixed(2)),
    bwrapColdMs: Number(median(bwrapCold).toFixed(2)),
    bwrapColdMinMs: Number(Math.min(...bwrapCold).toFixed(2)),
    ratio: Number(ratio.toFixed(2)),
    coldRatio: Number((median(bwrapCold) / median(plain)).toFixed(2)),
    target: 1.5,
    coldTarget: 4,
    pass: ratio <= 1.5 && median(bwrapCold) / median(plain) <= 4,
  }),
);
