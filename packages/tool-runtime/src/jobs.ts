import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync } from 'node:fs';
import { JobLimitError, JobNotFoundError } from './errors.js';
import { JobOutputFile } from './internal/job-output.js';
import { onEnded } from './internal/run-process.js';
import { processStartTime } from './process-identity.js';
import type { SandboxBackend, SharedNetworkNamespace } from './sandbox.js';

/** Options of {@link createJobManager}. */
export interface JobManagerOptions {
  /** Directory the jobs' output files go to (created if missing), beside the session. */
  dir: string;
  /** Jobs running at once. Default 5. */
  maxJobs?: number;
  /** Output kept on disk per job; older output is deleted. Default 32 MiB. */
  retainBytes?: number;
  /** How long `start` waits for the first lines. Default 1,000 ms. */
  firstOutputMs?: number;
  /** Lines `start` returns at most (it returns earlier once it has them). Default 20. */
  firstOutputLines?: number;
  /** Time between SIGTERM and SIGKILL in `kill`. Default 2,000 ms. */
  killGraceMs?: number;
  /** Number of the first job id (`job-<n>`); a resumed session continues after its last. Default 1. */
  firstNumber?: number;
}

/** A background job as the runtime context, `/jobs` and the log describe it. */
export interface JobInfo {
  /** Id the model names it by (`job-1`). */
  id: string;
  /** The shell command line. */
  command: string;
  /** `running`, or `exited` (also after a kill). */
  state: 'running' | 'exited';
  /** Exit code once exited normally. */
  exitCode?: number | null;
  /** Signal that ended it, if any. */
  signal?: string | null;
  /** True when `kill` (or the agent's exit) stopped it. */
  killed: boolean;
  /** Who stopped it, as `kill` was told (`model` by default). */
  killedBy?: JobKiller;
  /** Bytes of output written so far. */
  outputBytes: number;
  /** Process id of the job's process group leader. */
  pid: number;
  /** Its start time from `/proc/<pid>/stat` (clock ticks after boot), when known. */
  startTime?: number;
  /** Path of the job's first output file. */
  outputPath: string;
}

/** Who stops a job: the model (`job_kill`), a person (`/kill`, Ctrl-C), or the agent exiting. */
export type JobKiller = 'model' | 'person' | 'exit';

/** What the manager reports to listeners: a job started or a job exited. */
export type JobEvent = { type: 'started'; job: JobInfo } | { type: 'exited'; job: JobInfo };

/** Output read from a job. */
export interface JobOutputSlice {
  /** The text (UTF-8, invalid sequences replaced). */
  text: string;
  /** Byte offset of its first byte in the job's output. */
  start: number;
  /** Byte offset after its last byte. */
  end: number;
  /** Bytes between the read cursor and `start` that were not returned (too much, or deleted). */
  skipped: number;
}

/** What {@link JobManager.start} returns: the job and the first lines it printed. */
export interface JobStartResult {
  /** The job, as it is after the first-output wait. */
  job: JobInfo;
  /** The first output (at most `firstOutputLines` lines). */
  firstOutput: JobOutputSlice;
}

interface Job {
  info: JobInfo;
  child: ChildProcess;
  output: JobOutputFile;
  cursor: number;
  exited: Promise<void>;
}

const MAX_FIRST_BYTES = 8192;

/**
 * Runs background jobs: each is a child process in its own process group (inside the sandbox the
 * caller spawned it in), with stdout and stderr streamed to a file (never held in memory), a
 * limit on jobs at once, reads of new output or of a byte range, and kill by group.
 */
export class JobManager {
  readonly #options: Required<Omit<JobManagerOptions, 'firstNumber'>>;
  readonly #jobs = new Map<string, Job>();
  readonly #listeners = new Set<(event: JobEvent) => void>();
  #next: number;
  #network: Promise<SharedNetworkNamespace | undefined> | undefined;

  constructor(options: JobManagerOptions) {
    this.#options = {
      dir: options.dir,
      maxJobs: options.maxJobs ?? 5,
      retainBytes: options.retainBytes ?? 32 * 1024 * 1024,
      firstOutputMs: options.firstOutputMs ?? 1000,
      firstOutputLines: options.firstOutputLines ?? 20,
      killGraceMs: options.killGraceMs ?? 2000,
    };
    this.#next = options.firstNumber ?? 1;
  }

  /** The jobs of this session, oldest first. */
  list(): JobInfo[] {
    return [...this.#jobs.values()].map((job) => this.#snapshot(job));
  }

  /** The jobs still running. */
  running(): JobInfo[] {
    return this.list().filter((job) => job.state === 'running');
  }

  /** Subscribes to job events; returns the unsubscribe function. */
  onEvent(listener: (event: JobEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts a job. `spawn` gets a descriptor of the job's output file and returns a child in its
   * own process group: with the descriptor as its stdout and stderr (output never passes through
   * this process), or with them piped (this process then appends what it reads). Waits up to
   * `firstOutputMs` for the first lines (less once it has them or the job exits).
   *
   * @throws a {@link JobLimitError} when `maxJobs` jobs are running.
   */
  async start(command: string, spawn: (output: number) => ChildProcess): Promise<JobStartResult> {
    const running = this.running();
    if (running.length >= this.#options.maxJobs)
      throw new JobLimitError({ limit: this.#options.maxJobs, running: running.map((j) => j.id) });
    mkdirSync(this.#options.dir, { recursive: true, mode: 0o700 });
    const id = `job-${this.#next++}`;
    const output = new JobOutputFile({
      dir: this.#options.dir,
      id,
      retainBytes: this.#options.retainBytes,
    });
    const writer = output.openForWriter();
    let child: ChildProcess;
    try {
      child = spawn(writer);
    } finally {
      closeSync(writer);
    }
    const pid = child.pid ?? -1;
    const info: JobInfo = {
      id,
      command,
      state: 'running',
      killed: false,
      outputBytes: 0,
      pid,
      outputPath: output.path,
    };
    const startTime = processStartTime(pid);
    if (startTime !== undefined) info.startTime = startTime;
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (chunk: Buffer) => output.append(chunk));
    // Old output is released while the job runs (retention), checked once a second.
    const trimmer = setInterval(() => void output.trim(), 1000);
    trimmer.unref();
    const exited = new Promise<void>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (info.state === 'exited') return;
        clearInterval(trimmer);
        info.state = 'exited';
        info.exitCode = code;
        info.signal = signal;
        void output.trim().then(() => output.close());
        this.#emit({ type: 'exited', job: this.#snapshot(job) });
        resolve();
      };
      onEnded(child, finish, (error) =>
        output.append(Buffer.from(`failed to start: ${error.message}\n`)),
      );
    });
    const job: Job = { info, child, output, cursor: 0, exited };
    this.#jobs.set(id, job);
    this.#emit({ type: 'started', job: this.#snapshot(job) });
    await this.#waitForFirstLines(job);
    return { job: this.#snapshot(job), firstOutput: this.#firstLines(job) };
  }

  async #waitForFirstLines(job: Job): Promise<void> {
    const deadline = Date.now() + this.#options.firstOutputMs;
    let exited = false;
    void job.exited.then(() => {
      exited = true;
    });
    while (!exited && Date.now() < deadline) {
      const { bytes } = job.output.read(0, MAX_FIRST_BYTES);
      let lines = 0;
      for (const byte of bytes) if (byte === 10) lines++;
      if (lines >= this.#options.firstOutputLines || bytes.length >= MAX_FIRST_BYTES) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, deadline - Date.now())));
    }
  }

  #snapshot(job: Job): JobInfo {
    return { ...job.info, outputBytes: job.output.size };
  }

  /**
   * New output since the last read (or since `start` returned), at most `maxBytes`: when more is
   * waiting, the newest `maxBytes` are returned and `skipped` counts the rest (readable by range).
   *
   * @throws a {@link JobNotFoundError} for an unknown id.
   */
  readNew(id: string, maxBytes: number): JobOutputSlice {
    const job = this.#job(id);
    const end = job.output.size;
    const from = Math.max(job.cursor, end - maxBytes);
    const { start, bytes } = job.output.read(from, end - from);
    const slice = {
      text: bytes.toString('utf8'),
      start,
      end: start + bytes.length,
      skipped: start - job.cursor,
    };
    job.cursor = slice.end;
    return slice;
  }

  /**
   * Output from byte `offset`, at most `length` bytes (older output may have been deleted; the
   * slice then starts later). Does not move the read cursor.
   *
   * @throws a {@link JobNotFoundError} for an unknown id.
   */
  readRange(id: string, offset: number, length: number): JobOutputSlice {
    const job = this.#job(id);
    const { start, bytes } = job.output.read(offset, length);
    return {
      text: bytes.toString('utf8'),
      start,
      end: start + bytes.length,
      skipped: start - offset,
    };
  }

  /** The job `id` as it is now. @throws a {@link JobNotFoundError} for an unknown id. */
  info(id: string): JobInfo {
    return this.#snapshot(this.#job(id));
  }

  /**
   * Stops a job's whole process group: SIGTERM, then SIGKILL after `killGraceMs`. Resolves once
   * it exited; a job that already exited is returned as it is.
   *
   * @throws a {@link JobNotFoundError} for an unknown id.
   */
  async kill(id: string, by: JobKiller = 'model'): Promise<JobInfo> {
    const job = this.#job(id);
    if (job.info.state === 'running') {
      job.info.killed = true;
      job.info.killedBy ??= by;
      signalGroup(job.info.pid, 'SIGTERM');
      const timer = setTimeout(
        () => signalGroup(job.info.pid, 'SIGKILL'),
        this.#options.killGraceMs,
      );
      await job.exited;
      clearTimeout(timer);
      // Whatever the leader left behind in its group goes too.
      signalGroup(job.info.pid, 'SIGKILL');
    }
    return this.#snapshot(job);
  }

  /** Kills every running job (the agent is exiting); resolves when all have exited. */
  async killAll(by: JobKiller = 'exit'): Promise<JobInfo[]> {
    return Promise.all(this.running().map((job) => this.kill(job.id, by)));
  }

  /**
   * The loopback-only network namespace the session's sandboxed commands share while jobs run
   * (created on first use by `backend`), or `undefined` when the backend cannot make one (then
   * each command keeps a namespace of its own, as without jobs).
   */
  async sharedNetwork(backend: SandboxBackend): Promise<SharedNetworkNamespace | undefined> {
    if (!backend.createSharedNetwork) return undefined;
    this.#network ??= backend.createSharedNetwork().catch(() => undefined);
    return this.#network;
  }

  /** Kills every running job and stops the shared network namespace. */
  async close(): Promise<JobInfo[]> {
    const killed = await this.killAll('exit');
    const network = this.#network;
    this.#network = undefined;
    (await network)?.close();
    return killed;
  }

  #firstLines(job: Job): JobOutputSlice {
    const { start, bytes } = job.output.read(0, MAX_FIRST_BYTES);
    let end = bytes.length;
    let lines = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 10 && ++lines >= this.#options.firstOutputLines) {
        end = i + 1;
        break;
      }
    }
    job.cursor = start + end;
    return { text: bytes.subarray(0, end).toString('utf8'), start, end: start + end, skipped: 0 };
  }

  #job(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) throw new JobNotFoundError({ id, known: [...this.#jobs.keys()] });
    return job;
  }

  #emit(event: JobEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Creates a {@link JobManager} whose output files go to `options.dir`.
 *
 * @example
 * ```ts
 * const jobs = createJobManager({ dir: '/sessions/abc.jobs' });
 * const tools = createWorkspaceTools({ cwd, jobs }); // bash gains run_in_background
 * ```
 */
export function createJobManager(options: JobManagerOptions): JobManager {
  return new JobManager(options);
}
