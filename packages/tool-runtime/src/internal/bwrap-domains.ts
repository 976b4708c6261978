import { type ChildProcess, spawn } from 'node:child_process';
import type { Duplex, Writable } from 'node:stream';
import { type DomainProxyPolicy, handleProxyConnection } from '../network-proxy.js';
import type { SandboxCommand } from '../sandbox.js';
import { FORWARDER_SOURCE, SANDBOX_PROXY_PORT, serveMultiplexedLink } from './network-mux.js';

const LINK_FD = 4;

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell line a `domains` command runs as: start the forwarder on the inherited link (fd 4),
 * close the link for everything else, wait until the forwarder listens, then run the command with
 * the proxy variables set.
 */
export function domainLauncher(command: string): string {
  return [
    `${quote(process.execPath)} -e ${quote(FORWARDER_SOURCE)} ${SANDBOX_PROXY_PORT} ${LINK_FD} &`,
    `exec ${LINK_FD}>&-`,
    'i=0; while [ ! -e /tmp/.spine-proxy-ready ] && [ "$i" -lt 1000 ]; do sleep 0.01; i=$((i+1)); done',
    `exec /bin/bash --noprofile --norc -c ${quote(command)}`,
  ].join('\n');
}

/** Proxy variables the command sees (curl, npm, pip, git and most HTTP clients honour them). */
export function proxyEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  return {
    ...env,
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    NO_PROXY: '',
    no_proxy: '',
  };
}

/**
 * Starts `command` (already a {@link domainLauncher} line inside bwrap's arguments) with the
 * seccomp program on fd 3 and the multiplexed proxy link on fd 4; every connection the command
 * opens through the forwarder is served by {@link handleProxyConnection} with `policy`.
 */
export function spawnWithDomainProxy(options: {
  path: string;
  args: string[];
  command: SandboxCommand;
  env: NodeJS.ProcessEnv;
  seccompFilter: Buffer;
  policy: DomainProxyPolicy;
}): ChildProcess {
  const child = spawn(options.path, options.args, {
    cwd: options.command.workspace,
    env: proxyEnvironment(options.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const filterStream = child.stdio[3] as Writable | null;
  filterStream?.on('error', () => undefined);
  filterStream?.end(options.seccompFilter);
  const link = child.stdio[LINK_FD] as Duplex | null;
  link?.on('error', () => undefined);
  if (link) serveMultiplexedLink(link, (channel) => handleProxyConnection(channel, options.policy));
  return child;
}
