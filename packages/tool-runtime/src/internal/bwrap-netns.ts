import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { SandboxCommand, SharedNetworkNamespace } from '../sandbox.js';

function childOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    const first = Number(text.split(' ')[0]);
    return Number.isInteger(first) && first > 0 ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a holder for a fresh network namespace with only loopback (bwrap brings `lo` up): a
 * `sleep` under bwrap with `--unshare-net` (and a user namespace unless `userNamespace` is false),
 * dying with this process. Commands joined to it (`nsenter --net`) reach each other on 127.0.0.1
 * and nothing else. Resolves once the namespace exists.
 */
export async function startNetworkHolder(options: {
  bwrapPath: string;
  userNamespace: boolean;
  /** Whether `nsenter` is on PATH (commands join the namespace with it). */
  nsenterFound: boolean;
}): Promise<SharedNetworkNamespace> {
  if (!options.nsenterFound) throw new Error('nsenter (util-linux) is not on PATH');
  const args = ['--die-with-parent', '--unshare-net', '--unshare-ipc', '--unshare-uts'];
  // Not root: a user namespace of the holder's own owns the network namespace, so the caller
  // can join it. Uid 0 there maps to the caller (any other uid makes bwrap nest a second user
  // namespace the network namespace would not belong to). Root joins without one.
  const ownUserNamespace = options.userNamespace && process.getuid?.() !== 0;
  if (ownUserNamespace) args.push('--unshare-user', '--uid', '0', '--gid', '0');
  else args.push('--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/tmp');
  args.push('--', '/bin/sleep', 'infinity');
  const holder: ChildProcess = spawn(options.bwrapPath, args, { stdio: 'ignore', detached: true });
  holder.unref();
  const pid = holder.pid ?? -1;
  let inner: number | undefined;
  for (let i = 0; i < 200 && inner === undefined; i++) {
    if (holder.exitCode !== null) break;
    inner = childOf(pid);
    if (inner === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const close = (): void => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  if (inner === undefined) {
    close();
    throw new Error('the network namespace holder (bwrap --unshare-net) did not start');
  }
  const netPath = `/proc/${inner}/ns/net`;
  return ownUserNamespace
    ? { netPath, userPath: `/proc/${inner}/ns/user`, close }
    : { netPath, close };
}

/**
 * The argv prefix that runs a command inside `namespace`'s network namespace: as root only the
 * network namespace is entered; otherwise the holder's user namespace too (keeping the caller's
 * ids), which is what gives the right to join its network namespace.
 */
export function nsenterPrefix(namespace: SharedNetworkNamespace): string[] {
  const prefix = ['nsenter', `--net=${namespace.netPath}`];
  if (namespace.userPath) prefix.push(`--user=${namespace.userPath}`, '--preserve-credentials');
  return [...prefix, '--'];
}

/** `--unshare-all` without the network namespace (joined before bwrap starts). */
export const UNSHARE_ALL_BUT_NET = [
  '--unshare-user-try',
  '--unshare-ipc',
  '--unshare-pid',
  '--unshare-uts',
  '--unshare-cgroup-try',
];

/** Whether `command` joins its shared network namespace (sandboxed, no other network). */
export function joinsSharedNetwork(command: SandboxCommand): boolean {
  return (
    command.sharedNetwork !== undefined &&
    command.mode !== 'danger-full-access' &&
    command.network !== true &&
    (command.networkDomains ?? []).length === 0
  );
}
