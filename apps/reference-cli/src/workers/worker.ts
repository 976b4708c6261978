// `spine worker`: claims queued tasks and runs each as an ordinary session in the PostgreSQL
// store, heartbeating its claim. SIGTERM (or Ctrl-C) stops claiming, gives running tasks a grace
// period to finish, then aborts them (their turns end as `aborted` in the log) and releases them
// to the queue; a second signal aborts at once. A worker that dies keeps nothing: its claims
// expire and other workers take the tasks over, continuing each session with crash recovery.

import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOf, postgresStoreFor, UsageError } from '@spine/harness';
import { visibleText } from '@spine/protocol';
import { createPostgresTaskQueue, type TaskRecord } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { isOutage } from './outage.js';
import { runClaimedTask } from './run-task.js';
import { requireStoreUrl } from './store-url.js';

/** Flags of `spine worker`. */
export interface WorkerFlags extends AgentFlags {
  concurrency?: string;
  name?: string;
  leaseMs?: string;
  graceMs?: string;
  pollMs?: string;
  workDir?: string;
}

function count(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError({ message: `${flag} expects a positive integer, got "${value}"` });
  }
  return Number(value);
}

/** Runs the worker until a signal stops it; resolves with the exit code. */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const { loaded } = configForFlags(flags);
  const url = requireStoreUrl(loaded.config, 'worker');
  const concurrency = count(flags.concurrency, '--concurrency', 1);
  const leaseMs = count(flags.leaseMs, '--lease-ms', 30_000);
  const graceMs = count(flags.graceMs, '--grace-ms', 30_000);
  const pollMs = count(flags.pollMs, '--poll-ms', 1000);
  const name = flags.name ?? `${hostname()}:${process.pid}`;
  const workDir = flags.workDir ?? join(tmpdir(), 'spine-worker');
  // Sessions opened by tasks share this store, so their leases last as long as the claims.
  postgresStoreFor(url, { leaseMs });
  const queue = createPostgresTaskQueue({ ...connectionOf(url), leaseMs });
  const say = (line: string): void => {
    process.stderr.write(`worker ${visibleText(name)}: ${visibleText(line)}\n`);
  };
  const report = (fields: Record<string, unknown>): void => {
    if (flags.json) process.stdout.write(`${JSON.stringify({ worker: name, ...fields })}\n`);
  };
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  let wake: (() => void) | undefined;
  const rouse = (): void => wake?.();
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    if (stopping) {
      for (const entry of running.values()) entry.controller.abort();
      return;
    }
    stopping = true;
    say(`stopping: ${running.size} running task(s) get ${graceMs} ms to finish`);
    graceTimer = setTimeout(() => {
      for (const entry of running.values()) entry.controller.abort();
    }, graceMs);
    rouse();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  /**
   * Gives a task that failed because the store was unreachable back to the queue, retrying while
   * the store is down; if the claim expires first, the task is claimable again anyway.
   */
  const requeue = async (task: TaskRecord, why: string): Promise<void> => {
    const deadline = Date.now() + leaseMs;
    for (let pause = 200; ; pause = Math.min(pause * 2, 2000)) {
      try {
        const released = await queue.release(task);
        say(`requeued ${task.id}: the store was unavailable (${why})`);
        report({ event: 'requeued', task: task.id, released });
        return;
      } catch (error) {
        if (!isOutage(error) || Date.now() + pause > deadline) {
          say(`could not requeue ${task.id} (${String(error)}); its claim expires in time`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };

  /** Claims a task, waiting out an outage of the store (a restart, a partition) with backoff. */
  let outageSince: number | undefined;
  const claimNext = async (): Promise<TaskRecord | undefined | 'outage'> => {
    try {
      const task = await queue.claim(name);
      if (outageSince !== undefined) {
        say(`the store answers again after ${Date.now() - outageSince} ms`);
        outageSince = undefined;
      }
      return task;
    } catch (error) {
      if (!isOutage(error)) throw error;
      if (outageSince === undefined) {
        outageSince = Date.now();
        say(`the store is unavailable; waiting for it (${(error as Error).message})`);
        report({ event: 'store-unavailable' });
      }
      return 'outage';
    }
  };

  const start = (task: TaskRecord): void => {
    const controller = new AbortController();
    let lost = false;
    say(`claimed ${task.id} (session ${task.sessionId}, attempt ${task.attempts})`);
    report({ event: 'claimed', task: task.id, sessionId: task.sessionId, attempt: task.attempts });
    const heartbeat = setInterval(
      () => {
        queue.heartbeat(task).then(
          (held) => {
            if (!held && !lost) {
              lost = true;
              say(`lost the claim on ${task.id}; stopping it`);
              controller.abort();
            }
          },
          () => {},
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    const done = runClaimedTask(task, {
      flags,
      workDir,
      signal: controller.signal,
      openTimeoutMs: leaseMs + 5000,
      say,
    })
      .then(
        async (outcome) => {
          if (lost) return;
          if (outcome.storeUnavailable) {
            await requeue(task, outcome.result.error ?? outcome.result.reason);
            return;
          }
          if (stopping && controller.signal.aborted) {
            await queue.release(task);
            say(`released ${task.id} (${outcome.result.reason})`);
            report({ event: 'released', task: task.id });
            return;
          }
          await queue.finish(task, outcome);
          say(`finished ${task.id}: ${outcome.status} (${outcome.result.reason})`);
          report({ event: 'finished', task: task.id, status: outcome.status, ...outcome.result });
        },
        async (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (lost) return;
          if (isOutage(error)) {
            await requeue(task, message);
            return;
          }
          if (stopping) {
            await queue.release(task);
            say(`released ${task.id} after an error: ${message}`);
            return;
          }
          await queue.finish(task, {
            status: 'failed',
            result: { sessionId: task.sessionId, reason: 'error', error: message },
          });
          say(`failed ${task.id}: ${message}`);
          report({ event: 'finished', task: task.id, status: 'failed', error: message });
        },
      )
      .catch((error: unknown) => say(`could not record the end of ${task.id}: ${String(error)}`))
      .finally(() => {
        clearInterval(heartbeat);
        running.delete(task.id);
        rouse();
      });
    running.set(task.id, { controller, done });
  };

  say(`ready (concurrency ${concurrency})`);
  report({ event: 'ready', concurrency });
  try {
    while (!stopping) {
      let waitMs = pollMs;
      while (!stopping && running.size < concurrency) {
        const task = await claimNext();
        if (task === 'outage') {
          waitMs = Math.max(pollMs, 500);
          break;
        }
        if (!task) break;
        start(task);
      }
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    await Promise.all([...running.values()].map((entry) => entry.done));
  } finally {
    if (graceTimer) clearTimeout(graceTimer);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await queue.close();
    await postgresStoreFor(url).close();
  }
  say('stopped');
  report({ event: 'stopped' });
  return EXIT_CODES.ok;
}
