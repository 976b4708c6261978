// `bash` running `true` under the hardened bubblewrap sandbox (workspace-write: user namespace with
// a non-zero uid, no capabilities, read-only kernel knobs, protected paths, the seccomp program)
// against the same tool without a sandbox (danger-full-access): same code path, only the sandbox
// differs. Targets: 1.5x with the pre-started sandbox, 4x cold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallPart } from '@spine/protocol';
import {
  type InterleavedSamples,
  interleave,
  judge,
  medianTimes,
  perRoundRatios,
  printReport,
  ratioCheck,
} from '../../../scripts/lib/bench-interleave.js';
import {
  createBwrapSandbox,
  createToolRuntime,
  createWorkspaceTools,
  detectSandbox,
  type SandboxBackend,
} from '../src/index.js';
import { BwrapWarmPool } from '../src/internal/bwrap-warm-pool.js';

const RUNS = 60;
const WARMUP = 5;
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

// Interleaved round by round (scripts/lib/bench-interleave.ts): the order of the four rotates
// every round, so a busy machine slows all alike; each figure is the median of the per-round
// ratios to the unsandboxed run, judged on its 90% interval. The default backend parks the next
// sandbox ahead of time; the cold figure starts bwrap per call.
// Every call comes after the same untimed pause, as a shell call in a session comes after a model
// step: long enough for the spare sandbox parked after the previous call to be ready even on a
// busy machine (the order rotates, so the warm side sometimes comes right after itself).
const PAUSE_MS = 100;
async function afterPause(call: () => Promise<number>): Promise<number> {
  await new Promise((done) => setTimeout(done, PAUSE_MS));
  return call();
}
let samples: InterleavedSamples<'plain' | 'bwrap' | 'cold' | 'legacy'>;
try {
  samples = await interleave({
    sides: {
      plain: () => afterPause(() => timed(open, 'none')),
      bwrap: () => afterPause(() => timed(sandboxed, 'bwrap')),
      cold: () => afterPause(() => timed(cold, 'bwrap')),
      legacy: () => afterPause(() => timed(legacy, 'bwrap')),
    },
    rounds: RUNS,
    warmup: WARMUP,
    gc: false,
    onRound: (round, times) => {
      if ((round + 1) % 20 === 0)
        console.log(
          `run ${round + 1}/${RUNS}: unsandboxed ${times.plain.toFixed(1)} ms, bwrap ${times.bwrap.toFixed(1)} ms, cold ${times.cold.toFixed(1)} ms`,
        );
    },
  });
} finally {
  backend.close?.();
  legacyBackend.close?.();
  rmSync(cwd, { recursive: true, force: true });
}
const warm = ratioCheck(
  samples,
  'bwrap',
  'plain',
  { atMost: 1.5 },
  { name: 'warm bwrap ÷ unsandboxed' },
);
const coldCheck = ratioCheck(
  samples,
  'cold',
  'plain',
  { atMost: 4 },
  { name: 'cold bwrap ÷ unsandboxed' },
);
const hardening = judge(
  'warm bwrap ÷ pre-hardening bwrap',
  perRoundRatios(samples, 'bwrap', 'legacy'),
  {
    atMost: Number.POSITIVE_INFINITY,
  },
);
const ms = medianTimes(samples);
printReport({
  bench: 'tool-runtime/sandbox',
  checks: [warm, coldCheck],
  figures: {
    runs: RUNS,
    unsandboxedMs: ms.plain,
    bwrapMs: ms.bwrap,
    bwrapColdMs: ms.cold,
    legacyBwrapMs: ms.legacy,
    unsandboxedMinMs: Number(Math.min(...samples.plain).toFixed(2)),
    bwrapMinMs: Number(Math.min(...samples.bwrap).toFixed(2)),
    hardeningCost: hardening.figure,
    hardeningCost90: hardening.interval,
    ratio: warm.figure,
    ratio90: warm.interval,
    coldRatio: coldCheck.figure,
    coldRatio90: coldCheck.interval,
    target: 1.5,
    coldTarget: 4,
  },
});
