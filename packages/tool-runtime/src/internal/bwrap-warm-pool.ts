import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { SandboxCommand } from '../sandbox.js';

// Runs inside the sandbox: waits for "<dir>\0<command>\0" on stdin, then becomes the command.
// Starting bwrap (namespaces, mounts) takes several ms; a sandbox started ahead of time and parked
// on this read takes that off the critical path. Each command still gets its own fresh sandbox.
export const LAUNCHER =
  'IFS= read -r -d "" dir && IFS= read -r -d "" cmd && cd -- "$dir" && exec /bin/bash --noprofile --norc -c "$cmd"';

const MAX_PARKED = 4;

type Refable = { ref?: () => void; unref?: () => void } | null | undefined;

function setRef(child: ChildProcess, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const stream of child.stdio as unknown as Refable[]) {
    if (on) stream?.ref?.();
    else stream?.unref?.();
  }
}

const envIds = new WeakMap<object, number>();
let nextEnvId = 0;

function keyOf(command: SandboxCommand, env: NodeJS.ProcessEnv, args: readonly string[]): string {
  let id = envIds.get(env);
  if (id === undefined) {
    id = ++nextEnvId;
    envIds.set(env, id);
  }
  return JSON.stringify([
    command.mode,
    command.network === true,
    command.workspace,
    command.writableRoots ?? [],
    id,
    args,
  ]);
}

/** Starts bwrap sandboxes parked on {@link LAUNCHER}, one spare per configuration. */
export class BwrapWarmPool {
  private readonly idle = new Map<string, ChildProcess>();
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly argumentsFor: (command: SandboxCommand) => string[],
    private readonly seccompFilter: Buffer,
    private readonly prewarm: boolean,
  ) {}

  /** Hands `command` to a parked sandbox (or a fresh one) and parks the next spare. */
  spawn(command: SandboxCommand, env: NodeJS.ProcessEnv): ChildProcess {
    // The arguments are part of the key: a protected path that appeared since the spare was
    // started (`git init`) must not run in a sandbox that lacks its read-only bind.
    const args = this.launcherArguments(command);
    const key = keyOf(command, env, args);
    const child = this.take(key) ?? this.start(command, env, args);
    child.stdin?.end(`${command.cwd}\0${command.command}\0`);
    // Granted extras (network, more writable roots) are one-offs: do not keep such a sandbox waiting.
    const ordinary = !command.network && (command.writableRoots?.length ?? 0) === 0;
    // The next spare starts once this command has exited: started at once, its set-up would
    // compete for the CPU with the command it is meant to speed up (measured on 2 loaded cores).
    // Not inside the exit handler either: starting it (its arguments, a fork of this process)
    // took ~5-10 ms on the main thread before the command's result could be delivered. A timer
    // after `close` runs once the result has been handed on (the caller's promise chain).
    if (this.prewarm && ordinary && !this.closed)
      child.once('close', () => setTimeout(() => this.park(command, env), 0).unref());
    return child;
  }

  /** Kills every parked sandbox; later commands start cold. */
  close(): void {
    this.closed = true;
    for (const child of this.idle.values()) killGroup(child);
    this.idle.clear();
  }

  private launcherArguments(command: SandboxCommand): string[] {
    return this.argumentsFor({ ...command, cwd: command.workspace, command: LAUNCHER });
  }

  private start(command: SandboxCommand, env: NodeJS.ProcessEnv, args: string[]): ChildProcess {
    const child = spawn(this.path, args, {
      cwd: command.workspace,
      env,
      detached: true,
      // fd 3 carries the seccomp program; bwrap reads it to the end and closes it before the command runs.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.on('error', () => undefined);
    const filterStream = child.stdio[3] as Writable | null;
    filterStream?.on('error', () => undefined);
    filterStream?.end(this.seccompFilter);
    return child;
  }

  private park(command: SandboxCommand, env: NodeJS.ProcessEnv): void {
    if (this.closed) return;
    const args = this.launcherArguments(command);
    const key = keyOf(command, env, args);
    if (this.idle.has(key)) return;
    if (this.idle.size >= MAX_PARKED) {
      // Keep a few configurations warm at most (workspaces, modes); drop the oldest.
      const [oldestKey, oldest] = this.idle.entries().next().value as [string, ChildProcess];
      this.idle.delete(oldestKey);
      killGroup(oldest);
    }
    const child = this.start(command, env, args);
    setRef(child, false);
    const forget = (): void => {
      if (this.idle.get(key) === child) this.idle.delete(key);
    };
    child.once('exit', forget);
    child.once('error', forget);
    this.idle.set(key, child);
  }

  private take(key: string): ChildProcess | undefined {
    const child = this.idle.get(key);
    if (!child) return undefined;
    this.idle.delete(key);
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
      return undefined;
    setRef(child, true);
    return child;
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
