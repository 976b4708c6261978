// A background job writing 50 MB/s for 10 s in the bubblewrap sandbox: what capturing its output
// (streamed to segmented files on disk, retention-capped) costs the agent process, in CPU
// (process.cpuUsage of this process, which only reads the job's pipes and writes the files) and
// memory (RSS before and after). Baseline: the same process idle for the same time in the same run.
// Targets: ≤ 10% of one core above the baseline, RSS growth ≤ 32 MiB (flat: output never in memory),
// disk kept ≤ 48 MiB with a 32 MiB retention (older output released while the job runs).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobManager, detectSandbox, type JobInfo } from '../src/index.js';

const SECONDS = 10;
const MB_PER_SECOND = 50;
const backend = await detectSandbox();
if (!backend?.spawn) {
  console.log(JSON.stringify({ bench: 'tool-runtime/job-output', error: 'no bwrap', pass: false }));
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-jobs-'));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU of this process (ms) and wall time (ms) while `work` runs. */
async function measure(work: () => Promise<void>): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

// The writer: 1 MiB every 1000/50 ms, paced by the clock, for SECONDS (text lines, like a build log).
const writer = `const line = 'x'.repeat(1023) + '\\n'; const chunk = Buffer.from(line.repeat(1024));
const end = Date.now() + ${SECONDS * 1000}; let next = Date.now();
(function tick() { if (Date.now() >= end) return;
  process.stdout.write(chunk, () => { next += ${1000 / MB_PER_SECOND}; setTimeout(tick, Math.max(0, next - Date.now())); }); })();`;

await sleep(500);
const idle = await measure(() => sleep(SECONDS * 1000));
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const jobs = createJobManager({ dir, retainBytes: 32 * 1024 * 1024, firstOutputMs: 100 });
let job: JobInfo | undefined;
const captured = await measure(async () => {
  const started = await jobs.start('writer', (output) =>
    backend.spawn!(
      {
        command: `exec node -e "${writer.replace(/"/g, '\\"')}"`,
        cwd: dir,
        workspace: dir,
        mode: 'workspace-write',
      },
      { env: process.env, output },
    ),
  );
  while (jobs.info(started.job.id).state === 'running') await sleep(100);
  job = jobs.info(started.job.id);
});
global.gc?.();
const rssAfter = process.memoryUsage().rss;
// Disk actually used (released output is a hole in the file).
const kept = readdirSync(dir).reduce(
  (sum, name) => sum + statSync(join(dir, name)).blocks * 512,
  0,
);
await jobs.close();
rmSync(dir, { recursive: true, force: true });

const idlePercent = (idle.cpuMs / idle.wallMs) * 100;
const capturePercent = (captured.cpuMs / captured.wallMs) * 100;
const overPercent = capturePercent - idlePercent;
const rssGrowthMiB = (rssAfter - rssBefore) / 1024 / 1024;
const bytes = job?.outputBytes ?? 0;
const result = {
  bench: 'tool-runtime/job-output',
  seconds: SECONDS,
  targetMBps: MB_PER_SECOND,
  achievedMBps: Number((bytes / 1024 / 1024 / (captured.wallMs / 1000)).toFixed(1)),
  outputBytes: bytes,
  keptOnDiskBytes: kept,
  idleCpuPercent: Number(idlePercent.toFixed(2)),
  captureCpuPercent: Number(capturePercent.toFixed(2)),
  agentCpuPercentOverIdle: Number(overPercent.toFixed(2)),
  rssBeforeMiB: Number((rssBefore / 1024 / 1024).toFixed(1)),
  rssAfterMiB: Number((rssAfter / 1024 / 1024).toFixed(1)),
  rssGrowthMiB: Number(rssGrowthMiB.toFixed(1)),
  pass:
    overPercent <= 10 && rssGrowthMiB <= 32 && bytes >= SECONDS * MB_PER_SECOND * 0.8 * 1024 * 1024,
};
console.log(JSON.stringify(result));
