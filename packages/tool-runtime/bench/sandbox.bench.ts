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
  type SandboxBackend,
} from '../src/index.js';
import { BwrapWarmPool } from '../src/internal/bwrap-warm-pool.js';

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
// The pre-hardening argument set (no user namespace uid, no /proc covers, no protected paths, and
// a one-instruction allow-all seccomp program, which the pool's fd 3 needs; the shell still reads
// no startup files, a fix rather than hardening), pre-started the same way: what the hardening
// itself costs, measured under the same load.
const ALLOW_ALL = Buffer.from([0x06, 0, 0, 0, 0x00, 0x00, 0xff, 0x7f]);
const legacyPool = new BwrapWarmPool(
  backend.info.path ?? '/usr/bin/bwrap',
  (command) => [
    '--die-with-parent', '--new-session', '--unshare-all', '--ro-bind', '/', '/', '--dev', '/dev',
    '--proc', '/proc', '--tmpfs', '/tmp', '--bind', command.workspace, command.workspace,
    '--seccomp', '3', '--chdir', command.cwd, '--', '/bin/bash', '--noprofile', '--norc', '-c', command.command,
  ],
  ALLOW_ALL,
  true,
); // biome-ignore format: argv
const legacyBackend: SandboxBackend = {
  specificationVersion: 1,
  info: { name: 'bwrap', enforces: ['read-only', 'workspace-write', 'danger-full-access'] },
  wrap: () => ({ file: '/bin/false', args: [] }), // the bash tool starts it through spawn
  spawn: (command, options) => legacyPool.spawn(command, options.env ?? process.env),
  close: () => legacyPool.close(),
};
const legacy = createToolRuntime({
  cwd,
  tools: createWorkspaceTools({ cwd, sandboxBackend: legacyBackend }),
  sandbox: 'workspace-write',
  approval: 'never-ask',
  sandboxBackend: legacyBackend,
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
const bwrapLegacy: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    plain.push(await timed(open, 'none'));
    bwrap.push(await timed(sandboxed, 'bwrap'));
    bwrapCold.push(await timed(cold, 'bwrap'));
    bwrapLegacy.push(await timed(legacy, 'bwrap'));
    if ((run + 1) % 10 === 0)
      console.log(
        `run ${run + 1}/${RUNS}: unsandboxed ${plain.at(-1)!.toFixed(1)} ms, bwrap ${bwrap.at(-1)!.toFixed(1)} ms`,
      );
  }
} finally {
  backend.close?.();
  legacyBackend.close?.();
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
    legacyBwrapMs: Number(median(bwrapLegacy).toFixed(2)),
    hardeningCost: Number((median(bwrap) / median(bwrapLegacy)).toFixed(2)),
    ratio: Number(ratio.toFixed(2)),
    coldRatio: Number((median(bwrapCold) / median(plain)).toFixed(2)),
    target: 1.5,
    coldTarget: 4,
    pass: ratio <= 1.5 && median(bwrapCold) / median(plain) <= 4,
  }),
);
