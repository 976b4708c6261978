// The hardened bubblewrap sandbox, checked from inside with real bwrap, real perl syscalls and the
// ordinary tools a coding agent runs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxMode } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bwrapArguments,
  createBwrapSandbox,
  detectSandbox,
  type SandboxBackend,
} from '../src/index.js';
import { runProcess } from '../src/internal/run-process.js';
import { makeTempDir } from './helpers.js';

const BWRAP = '/usr/bin/bwrap';
let base: { dir: string; cleanup: () => void };
let backend: SandboxBackend;
let unixBackend: SandboxBackend;

async function run(
  command: string,
  mode: SandboxMode = 'workspace-write',
  using: SandboxBackend = backend,
): Promise<{ output: string; exitCode: number | null }> {
  const confined = { command, cwd: base.dir, workspace: base.dir, mode };
  const result = await runProcess({
    start: () => using.spawn!(confined, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }),
    file: '',
    args: [],
    cwd: base.dir,
    timeoutMs: 60_000,
    maxOutputChars: 20_000,
  });
  return { output: result.output, exitCode: result.exitCode };
}

// perl's syscall() prints the errno of a failed call, or "ok" (perl-base is on every Debian).
const sys = (nr: number, ...args: number[]): string =>
  `perl -e '$r = syscall(${[nr, ...args].join(', ')}); print $r == -1 ? "errno=".($!+0) : "ok", "\\n"'`;

beforeAll(() => {
  if (!existsSync(BWRAP)) throw new Error('bubblewrap is required: apt-get install bubblewrap');
  base = makeTempDir('spine-hardening-');
  backend = createBwrapSandbox({ path: BWRAP });
  unixBackend = createBwrapSandbox({ path: BWRAP, unixSockets: 'all' });
});

afterAll(() => {
  backend.close?.();
  unixBackend.close?.();
  base.cleanup();
});

describe('hardened bubblewrap sandbox', () => {
  it.each(['workspace-write', 'read-only'] as const)(
    '%s: no capabilities, no_new_privs, seccomp on, a non-zero uid',
    async (mode) => {
      const { output } = await run(
        'id -u; grep -E "^(CapEff|CapPrm|NoNewPrivs|Seccomp):" /proc/self/status',
        mode,
      );
      const lines = output.trim().split('\n');
      expect(Number(lines[0])).toBeGreaterThan(0);
      expect(output).toMatch(/CapPrm:\s+0+\n/);
      expect(output).toMatch(/CapEff:\s+0+\n/);
      expect(output).toMatch(/NoNewPrivs:\s+1/);
      expect(output).toMatch(/Seccomp:\s+2/);
    },
  );

  it('keeps /proc/sys, /sys and /proc/sysrq-trigger read-only (writes the same value back)', async () => {
    const before = readFileSync('/proc/sys/kernel/printk_ratelimit_burst', 'utf8');
    const { output } = await run(
      'v=$(cat /proc/sys/kernel/printk_ratelimit_burst); echo "$v" > /proc/sys/kernel/printk_ratelimit_burst && echo WROTE-SYSCTL; ' +
        'c=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$c" > /proc/sys/kernel/core_pattern && echo WROTE-CORE; ' +
        'echo 0 > /sys/kernel/profiling 2>/dev/null && echo WROTE-SYS; ' +
        'test -e /proc/sysrq-trigger && { echo x > /proc/sysrq-trigger 2>/dev/null && echo WROTE-SYSRQ; }; ' +
        'grep -E " /proc/sys | /sys " /proc/self/mountinfo',
    );
    expect(output).not.toMatch(/WROTE/);
    expect(output).toMatch(/Read-only file system/);
    expect(readFileSync('/proc/sys/kernel/printk_ratelimit_burst', 'utf8')).toBe(before);
  });

  it('refuses each dangerous syscall with EPERM (clone3 with ENOSYS) inside the sandbox', async () => {
    const probes: [string, string][] = [
      ['mount', sys(165, 0, 0, 0, 0, 0)],
      ['umount2', sys(166, 0, 0)],
      ['pivot_root', sys(155, 0, 0)],
      ['chroot', `perl -e 'chroot("/tmp") or print "errno=".($!+0)."\\n"'`],
      ['ptrace', sys(101, 0, 0, 0, 0)],
      ['process_vm_readv', sys(310, 1, 0, 0, 0, 0, 0)],
      ['kexec_load', sys(246, 0, 0, 0, 0)],
      ['bpf', sys(321, 0, 0, 0)],
      ['keyctl', sys(250, 0, -1, 0)],
      ['add_key', sys(248, 0, 0, 0, 0, 0)],
      ['request_key', sys(249, 0, 0, 0, 0)],
      ['unshare', sys(272, 0x10000000)],
      ['setns', sys(308, 0, 0)],
      ['perf_event_open', sys(298, 0, 0, -1, -1, 0)],
      ['userfaultfd', sys(323, 0)],
      ['init_module', sys(175, 0, 0, 0)],
      ['finit_module', sys(313, 0, 0, 0)],
      ['delete_module', sys(176, 0, 0)],
      ['open_by_handle_at', sys(304, 0, 0, 0)],
      ['io_uring_setup', sys(425, 1, 0)],
      ['clone(CLONE_NEWUSER)', sys(56, 0x10000000 | 17, 0, 0, 0, 0)],
      ['clone(CLONE_NEWNS)', sys(56, 0x20000 | 17, 0, 0, 0, 0)],
      ['socket(AF_UNIX)', sys(41, 1, 1, 0)],
      ['socket(AF_VSOCK)', sys(41, 40, 1, 0)],
    ];
    if (process.arch !== 'x64')
      throw new Error('these syscall numbers are x86_64; add aarch64 ones');
    const script = probes.map(([name, probe]) => `printf "%s " "${name}"; ${probe}`).join('; ');
    const { output } = await run(script);
    for (const [name] of probes) expect(output, name).toContain(`${name} errno=1\n`);
    expect((await run(sys(435, 0, 0))).output).toBe('errno=38\n');
  });

  it('the refusals come from the filter: the same calls succeed in bwrap without it', () => {
    const probe = `${sys(101, 0, 0, 0, 0)}; ${sys(250, 0, -1, 0)}; ${sys(41, 1, 1, 0)}`;
    const args = bwrapArguments({
      command: probe,
      cwd: base.dir,
      workspace: base.dir,
      mode: 'read-only',
    });
    const unfiltered = spawnSync(BWRAP, args, { encoding: 'utf8' });
    // ptrace(TRACEME) and socket(AF_UNIX) succeed; keyctl reaches the kernel (ENOKEY, not EPERM).
    expect(unfiltered.stdout).toBe('ok\nerrno=126\nok\n');
  });

  it('allows socketpair, IPv4 sockets and threads; allows AF_UNIX only with unixSockets: all', async () => {
    const { output } = await run(
      `${sys(53, 1, 1, 0, 0)}; ${sys(41, 2, 1, 0)}; ${sys(41, 1, 1, 0)}`,
    );
    expect(output).toBe('errno=14\nok\nerrno=1\n'); // socketpair with a NULL pointer: EFAULT, not EPERM
    expect((await run(sys(41, 1, 1, 0), 'workspace-write', unixBackend)).output).toBe('ok\n');
  });

  it('detectSandbox with options builds a configured backend at the detected bwrap; with the defaults it returns the cached one', async () => {
    const found = await detectSandbox();
    expect(found?.info.name).toBe('bwrap');
    expect(await detectSandbox({ unixSockets: 'none' })).toBe(found);
    const configured = await detectSandbox({ unixSockets: 'all' });
    try {
      expect(configured).not.toBe(found);
      expect(configured?.info).toMatchObject({
        path: found?.info.path,
        userNamespace: found?.info.userNamespace,
      });
      expect((await run(sys(41, 1, 1, 0), 'workspace-write', found)).output).toBe('errno=1\n');
      expect((await run(sys(41, 1, 1, 0), 'workspace-write', configured)).output).toBe('ok\n');
    } finally {
      configured?.close?.();
    }
  });

  it('runs bash, coreutils, git, node, python3, make and tar normally', async () => {
    mkdirSync(join(base.dir, 'proj'), { recursive: true });
    writeFileSync(join(base.dir, 'proj', 'Makefile'), 'all:\n\t@echo made\n');
    const command = [
      'cd proj',
      'git init -q . && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo git-ok',
      `${process.execPath} -e "require('child_process').execFileSync('true'); console.log('node-ok')"`,
      "/usr/bin/python3 -c \"import asyncio, subprocess; subprocess.run(['true']); asyncio.run(asyncio.sleep(0)); print('python-ok')\"",
      'make -s',
      'tar -cf /tmp/a.tar Makefile && tar -tf /tmp/a.tar',
      'seq 3 | sort -r | head -1; (sleep 0.1 &); wait',
    ].join(' && ');
    const { output, exitCode } = await run(command);
    expect(output).toBe('git-ok\nnode-ok\npython-ok\nmade\nMakefile\n3\n');
    expect(exitCode).toBe(0);
  });

  it('without a user namespace of its own (kernels that refuse one) still drops capabilities and filters', async () => {
    const plain = createBwrapSandbox({ path: BWRAP, userNamespace: false });
    try {
      expect(plain.info.userNamespace).toBe(false);
      const { output } = await run(
        'grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; echo 1 > /proc/sys/kernel/printk_ratelimit_burst',
        'workspace-write',
        plain,
      );
      expect(output).toMatch(/CapEff:\s+0+\n/);
      expect(output).toMatch(/NoNewPrivs:\s+1/);
      expect(output).toMatch(/Seccomp:\s+2/);
      expect(output).toMatch(/Read-only file system/);
      expect(
        bwrapArguments(
          { command: 'true', cwd: '/w', workspace: '/w', mode: 'read-only' },
          { userNamespace: false },
        ),
      ).not.toContain('--unshare-user');
    } finally {
      plain.close?.();
    }
  });

  it('wrap() gives an argv (used for hooks) that applies the same seccomp filter', () => {
    const { file, args } = backend.wrap({
      command: 'grep -E "^Seccomp:" /proc/self/status; id -u',
      cwd: base.dir,
      workspace: base.dir,
      mode: 'read-only',
    });
    const result = spawnSync(file, args, { encoding: 'utf8' });
    expect(result.stdout).toMatch(/^Seccomp:\s+2\n[1-9]\d*\n$/);
  });

  it('read-only mode has a private /tmp as well', async () => {
    const marker = `spine-ro-tmp-${process.pid}-${Date.now()}`;
    const { output } = await run(`echo x > /tmp/${marker} && cat /tmp/${marker}`, 'read-only');
    expect(output).toBe('x\n');
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });
});
