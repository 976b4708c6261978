// Commands an attacker (or a confused model) would try from inside the shell sandbox. Each prints
// ESCAPED only if the attack worked; the host-side checks in hostile-commands.test.ts catch the
// attacks whose success would not show in the output. Kernel settings are written with the value
// they already have, so the host never changes even if a write got through.

/** Host fixtures the commands aim at. */
export interface HostileTargets {
  /** A directory outside the workspace, writable by everyone on the host. */
  outside: string;
  /** Listening Unix sockets: outside the workspace, under /tmp, under /run. */
  sockets: { outside: string; tmp: string; run: string };
  /** Abstract Unix socket name (without the leading NUL). */
  abstract: string;
  /** A tmux server socket on the host. */
  tmux: string;
  /** Host loopback TCP and UDP ports with listeners. */
  tcpPort: number;
  udpPort: number;
  /** Unique text for background processes, so the host can look for them afterwards. */
  marker: string;
}

/** One hostile command. */
export interface HostileCase {
  id: string;
  category: string;
  command: (targets: HostileTargets) => string;
  /** What the output says when the attack fails for the expected reason. */
  because: RegExp;
  /** Only meaningful in workspace-write (read-only refuses every write anyway). */
  writeModeOnly?: boolean;
  /**
   * Run with `network: { domains: ['listed.test', 'listed.test:<tcpPort>', 'metadata.test'] }`
   * (ports 80 and 443 of listed.test and metadata.test, and the test server's port), where `*.test` resolves to
   * 127.0.0.1 and metadata.test to 169.254.169.254 (the runner's stand-in for DNS).
   */
  domains?: boolean;
}

const PY = '/usr/bin/python3';
const sameValue = (file: string): string =>
  `f=${file}; test -e $f || { echo "absent: $f"; exit 1; }; v=$(cat $f) && printf '%s\\n' "$v" > $f && echo ESCAPED`;
const perlSyscall = (nr: number, ...args: (number | string)[]): string =>
  `perl -e '$r = syscall(${[nr, ...args].join(', ')}); print $r == -1 ? "refused: $!\\n" : "ESCAPED\\n"'`;
const python = (code: string): string => `${PY} - <<'PY'\n${code}\nPY`;
const unixConnect = (path: string): string =>
  python(
    `import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\ns.connect(${JSON.stringify(path)})\ns.sendall(b"hostile\\n")\nprint("ESCAPED")`,
  );
const perlUnix = (path: string): string =>
  `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => "${path}") or die "connect: $!\\n"; print $s "hostile\\n"; print "ESCAPED\\n"'`;

const READ_ONLY = /Read-only file system/;
const NOT_PERMITTED = /Operation not permitted|refused: Operation not permitted|EPERM/;

const KERNEL_SETTINGS = [
  'kernel/printk_ratelimit_burst',
  'kernel/core_pattern',
  'kernel/randomize_va_space',
  'kernel/unprivileged_bpf_disabled',
  'kernel/perf_event_paranoid',
  'kernel/kptr_restrict',
  'kernel/panic',
  'kernel/hostname',
  'vm/overcommit_memory',
  'fs/file-max',
  'fs/protected_symlinks',
  'net/ipv4/ip_forward',
];

export const HOSTILE_CASES: readonly HostileCase[] = [
  ...KERNEL_SETTINGS.map(
    (setting): HostileCase => ({
      id: `sysctl ${setting}`,
      category: 'kernel settings',
      command: () => sameValue(`/proc/sys/${setting}`),
      because: READ_ONLY,
    }),
  ),
  {
    id: 'sysctl -w through procps',
    category: 'kernel settings',
    command: () =>
      'v=$(cat /proc/sys/kernel/printk_ratelimit) && /usr/sbin/sysctl -q -w kernel.printk_ratelimit="$v" 2>&1 && echo ESCAPED',
    because: /Read-only file system|permission denied/i,
  },
  {
    id: '/proc/sysrq-trigger',
    category: '/proc and /sys',
    command: () =>
      'test -e /proc/sysrq-trigger || { echo "absent: /proc/sysrq-trigger"; exit 1; }; echo h > /proc/sysrq-trigger && echo ESCAPED',
    because: /absent|Read-only file system|Permission denied/,
  },
  {
    id: '/sys/kernel/uevent_helper',
    category: '/proc and /sys',
    command: () => sameValue('/sys/kernel/uevent_helper'),
    because: /absent|Read-only file system/,
  },
  {
    id: '/sys/kernel/mm/ksm/run',
    category: '/proc and /sys',
    command: () => sameValue('/sys/kernel/mm/ksm/run'),
    because: /absent|Read-only file system/,
  },
  {
    id: '/sys/fs/cgroup escape (cgroup.procs)',
    category: '/proc and /sys',
    command: () =>
      'for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do test -e "$f" && { echo $$ > "$f" 2>&1 && echo ESCAPED; }; done; true',
    because: /Read-only file system|^$/,
  },
  {
    id: '/proc/kcore read',
    category: '/proc and /sys',
    command: () => 'head -c 16 /proc/kcore >/dev/null 2>&1 && echo ESCAPED || echo "refused: /proc/kcore"',
    because: /refused/,
  },
  {
    id: '/dev/kmsg write',
    category: '/proc and /sys',
    command: () =>
      'test -c /dev/kmsg || { echo "absent: no kernel log device"; exit 1; }; echo hostile > /dev/kmsg && echo ESCAPED',
    because: /absent|Permission denied|Read-only|not permitted/,
  },
  {
    id: 'mknod a disk device',
    category: '/proc and /sys',
    command: () => 'mknod /tmp/disk b 8 0 && echo ESCAPED',
    because: NOT_PERMITTED,
  },
  {
    id: 'binfmt_misc register',
    category: '/proc and /sys',
    command: () =>
      "test -e /proc/sys/fs/binfmt_misc/register || { echo 'absent: binfmt_misc'; exit 1; }; echo ':x:E::x::/bin/sh:' > /proc/sys/fs/binfmt_misc/register && echo ESCAPED",
    because: /absent|Read-only file system|Permission denied/,
  },
  ...(['outside', 'tmp', 'run'] as const).flatMap((where): HostileCase[] => [
    {
      id: `Unix socket ${where} (python)`,
      category: 'Unix sockets',
      command: (t) => unixConnect(t.sockets[where]),
      because: NOT_PERMITTED,
    },
    {
      id: `Unix socket ${where} (perl)`,
      category: 'Unix sockets',
      command: (t) => perlUnix(t.sockets[where]),
      because: /connect: Operation not permitted/,
    },
  ]),
  {
    id: 'abstract Unix socket',
    category: 'Unix sockets',
    command: (t) =>
      python(
        `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect("\\0${t.abstract}")\nprint("ESCAPED")`,
      ),
    because: NOT_PERMITTED,
  },
  {
    id: 'tmux server on the host',
    category: 'Unix sockets',
    command: (t) => `tmux -S ${t.tmux} run-shell 'touch ${t.outside}/tmux-pwned' 2>&1 && echo ESCAPED`,
    because: /not permitted|error connecting|no server running|Permission denied/,
  },
  {
    id: 'Unix socket through a symlink in the workspace',
    category: 'Unix sockets',
    command: (t) => `ln -sf ${t.sockets.outside} ./sock-link 2>&1; ${unixConnect('./sock-link')}`,
    because: NOT_PERMITTED,
  },
  {
    id: 'mount tmpfs (util-linux)',
    category: 'namespaces and privileges',
    command: () => 'mount -t tmpfs none /mnt 2>&1 && echo ESCAPED',
    because: /must be superuser|only root|not permitted|permission denied/i,
  },
  { id: 'mount(2)', category: 'namespaces and privileges', command: () => perlSyscall(165, 0, 0, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'umount2(/proc)', category: 'namespaces and privileges', command: () => `perl -e '$p = "/proc"; $r = syscall(166, $p, 2); print $r == -1 ? "refused: $!\\n" : "ESCAPED\\n"'`, because: NOT_PERMITTED },
  { id: 'pivot_root(2)', category: 'namespaces and privileges', command: () => perlSyscall(155, 0, 0), because: NOT_PERMITTED },
  ...['-U', '-m', '-n', '-p -f', '-r', '-Ur'].map(
    (flags): HostileCase => ({
      id: `unshare ${flags}`,
      category: 'namespaces and privileges',
      command: () => `unshare ${flags} true 2>&1 && echo ESCAPED`,
      because: /not permitted/,
    }),
  ),
  {
    id: 'unshare(CLONE_NEWUSER) through python ctypes',
    category: 'namespaces and privileges',
    command: () =>
      python(
        'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nif libc.unshare(0x10000000) == 0: print("ESCAPED")\nelse: print("refused:", os.strerror(ctypes.get_errno()))',
      ),
    because: NOT_PERMITTED,
  },
  { id: 'clone(CLONE_NEWUSER|CLONE_NEWNS)', category: 'namespaces and privileges', command: () => perlSyscall(56, 0x10020000 | 17, 0, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'clone3 (flags behind a pointer)', category: 'namespaces and privileges', command: () => perlSyscall(435, 0, 0), because: /Function not implemented/ },
  {
    id: 'nsenter into pid 1 namespaces',
    category: 'namespaces and privileges',
    command: () => 'nsenter -t 1 -m -u -n -i true 2>&1 && echo ESCAPED',
    because: /not permitted|Permission denied/,
  },
  {
    id: 'setns(2) on /proc/1/ns/mnt',
    category: 'namespaces and privileges',
    command: () =>
      `perl -e 'open(my $f, "<", "/proc/1/ns/mnt") or die "open: $!\\n"; $r = syscall(308, fileno($f), 0); print $r == -1 ? "refused: $!\\n" : "ESCAPED\\n"'`,
    because: /not permitted|open: Permission denied/,
  },
  { id: 'chroot (coreutils)', category: 'namespaces and privileges', command: () => 'chroot / true 2>&1 && echo ESCAPED', because: NOT_PERMITTED },
  {
    id: 'ptrace attach (strace)',
    category: 'namespaces and privileges',
    command: () =>
      'command -v strace >/dev/null || { echo "refused: no strace"; exit 1; }; strace -f -o /dev/null true 2>&1 && echo ESCAPED',
    because: /not permitted|no strace/,
  },
  { id: 'ptrace(PTRACE_ATTACH, 1)', category: 'namespaces and privileges', command: () => perlSyscall(101, 16, 1, 0, 0), because: NOT_PERMITTED },
  { id: 'process_vm_readv', category: 'namespaces and privileges', command: () => perlSyscall(310, 1, 0, 0, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'kexec_load', category: 'namespaces and privileges', command: () => perlSyscall(246, 0, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'init_module', category: 'namespaces and privileges', command: () => perlSyscall(175, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'bpf', category: 'namespaces and privileges', command: () => perlSyscall(321, 0, 0, 0), because: NOT_PERMITTED },
  { id: 'keyctl', category: 'namespaces and privileges', command: () => perlSyscall(250, 0, -1, 0), because: NOT_PERMITTED },
  { id: 'perf_event_open', category: 'namespaces and privileges', command: () => perlSyscall(298, 0, 0, -1, -1, 0), because: NOT_PERMITTED },
  { id: 'userfaultfd', category: 'namespaces and privileges', command: () => perlSyscall(323, 0), because: NOT_PERMITTED },
  { id: 'io_uring_setup', category: 'namespaces and privileges', command: () => perlSyscall(425, 1, 0), because: NOT_PERMITTED },
  { id: 'open_by_handle_at (shocker)', category: 'namespaces and privileges', command: () => perlSyscall(304, 0, 0, 0), because: NOT_PERMITTED },
  {
    id: 'TCP to a host loopback listener (bash /dev/tcp)',
    category: 'network',
    command: (t) => `exec 3<>/dev/tcp/127.0.0.1/${t.tcpPort} && echo ESCAPED`,
    because: /Connection refused|Network is unreachable/,
  },
  {
    id: 'HTTP to a host loopback listener (curl)',
    category: 'network',
    command: (t) => `curl -sS -m 5 http://127.0.0.1:${t.tcpPort}/ && echo ESCAPED`,
    because: /Failed to connect|Couldn't connect|Connection refused/,
  },
  {
    id: 'UDP to a host loopback listener',
    category: 'network',
    command: (t) => `echo hostile > /dev/udp/127.0.0.1/${t.udpPort}; echo "sent into the sandbox's own loopback"`,
    because: /own loopback/,
  },
  {
    id: 'DNS lookup',
    category: 'network',
    command: () => 'getent ahosts example.com && echo ESCAPED || echo "refused: no resolution"',
    because: /refused: no resolution/,
  },
  {
    id: 'DNS lookup through python',
    category: 'network',
    command: () => python('import socket\ntry:\n  socket.getaddrinfo("example.com", 443)\n  print("ESCAPED")\nexcept OSError as e:\n  print("refused:", e)'),
    because: /refused:/,
  },
  { id: 'raw packet socket', category: 'network', command: () => perlSyscall(41, 17, 3, 0), because: NOT_PERMITTED },
  { id: 'vsock to the hypervisor', category: 'network', command: () => perlSyscall(41, 40, 1, 0), because: NOT_PERMITTED },
  {
    id: 'a host not listed, through the proxy',
    category: 'network',
    domains: true,
    command: (t) => `curl -sS -m 20 --fail-with-body http://unlisted.test:${t.tcpPort}/ && echo ESCAPED`,
    because: /not in the allowed domains/,
  },
  {
    id: 'a listed host whose DNS answer is a loopback address',
    category: 'network',
    domains: true,
    command: (t) => `curl -sS -m 20 --fail-with-body http://listed.test:${t.tcpPort}/ && echo ESCAPED`,
    because: /resolves to a refused address/,
  },
  {
    id: 'a listed host on a port that is not listed',
    category: 'network',
    domains: true,
    command: () => 'curl -sS -m 20 --fail-with-body http://listed.test:8080/ && echo ESCAPED',
    because: /port 8080 of listed\.test is not allowed/,
  },
  {
    id: 'a listed host whose DNS answer is the metadata endpoint',
    category: 'network',
    domains: true,
    command: () => 'curl -sS -m 20 --fail-with-body http://metadata.test/latest/meta-data/ && echo ESCAPED',
    because: /resolves to a refused address/,
  },
  {
    id: 'around the proxy to the host loopback listener',
    category: 'network',
    domains: true,
    command: (t) => `curl -sS -m 20 --noproxy '*' http://127.0.0.1:${t.tcpPort}/ && echo ESCAPED`,
    because: /Failed to connect|Couldn't connect/,
  },
  {
    id: 'CONNECT to an IP literal through the proxy',
    category: 'network',
    domains: true,
    command: (t) => `curl -sS -m 20 -p http://127.0.0.1:${t.tcpPort}/ && echo ESCAPED`,
    because: /CONNECT tunnel failed, response 403/,
  },
  {
    id: 'write to a directory outside the workspace',
    category: 'writes outside',
    command: (t) => `echo x > ${t.outside}/pwned && echo ESCAPED`,
    because: READ_ONLY,
  },
  { id: 'append to /etc/passwd', category: 'writes outside', command: () => 'echo "x::0:0::/:/bin/sh" >> /etc/passwd && echo ESCAPED', because: /Read-only file system|Permission denied/ },
  { id: 'write $HOME/.bashrc', category: 'writes outside', command: () => 'echo "echo pwned" >> "$HOME/.bashrc" && echo ESCAPED', because: /Read-only file system|Permission denied|No such file/ },
  { id: 'write /var/tmp', category: 'writes outside', command: () => 'echo x > /var/tmp/spine-hostile && echo ESCAPED', because: READ_ONLY },
  {
    id: 'symlink from the workspace to outside, then write',
    category: 'writes outside',
    command: (t) => `ln -sf ${t.outside}/via-link ./out-link 2>&1; echo x > ./out-link && echo ESCAPED`,
    because: READ_ONLY,
  },
  {
    id: 'hard link to a host file',
    category: 'writes outside',
    command: () => 'ln /etc/hostname ./hostname-link 2>&1 && echo ESCAPED',
    because: /Invalid cross-device link|Operation not permitted|Read-only/,
  },
  {
    id: 'write through /proc/1/root',
    category: 'writes outside',
    command: (t) => `echo x > /proc/1/root${t.outside}/via-proc && echo ESCAPED`,
    because: /Read-only file system|Permission denied/,
  },
  {
    id: '/tmp and /dev/shm are private',
    category: 'writes outside',
    command: (t) => `echo x > /tmp/${t.marker}-tmp; echo x > /dev/shm/${t.marker}-shm; echo "written inside only"`,
    because: /written inside only/,
  },
  { id: 'append to .git/config', category: 'protected paths', writeModeOnly: true, command: () => 'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" >> .git/config && echo ESCAPED', because: READ_ONLY },
  { id: 'create .git/hooks/pre-commit', category: 'protected paths', writeModeOnly: true, command: () => 'printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/pre-commit && echo ESCAPED', because: READ_ONLY },
  { id: 'git config core.fsmonitor', category: 'protected paths', writeModeOnly: true, command: () => 'git config core.fsmonitor "touch /tmp/pwned" 2>&1 && echo ESCAPED', because: /could not lock|Read-only|Device or resource busy/ },
  { id: 'swap .git for a new one', category: 'protected paths', writeModeOnly: true, command: () => 'mv .git .git-old 2>&1 && echo ESCAPED', because: /Device or resource busy/ },
  { id: 'write .spine/config.json', category: 'protected paths', writeModeOnly: true, command: () => 'mkdir -p .spine 2>&1; echo "{}" > .spine/config.json && echo ESCAPED', because: READ_ONLY },
  {
    id: 'background process with &',
    category: 'background survival',
    command: (t) => `(bash -c 'exec -a sleep-${t.marker}1 sleep 300' &) ; echo "started"`,
    because: /started/,
  },
  {
    id: 'setsid nohup',
    category: 'background survival',
    command: (t) => `setsid nohup bash -c 'exec -a sleep-${t.marker}2 sleep 300' >/dev/null 2>&1 & echo "started"`,
    because: /started/,
  },
  {
    id: 'double fork daemon (python)',
    category: 'background survival',
    command: (t) =>
      python(
        `import os, time\nif os.fork() == 0:\n  os.setsid()\n  if os.fork() == 0:\n    os.execvp("bash", ["bash", "-c", "exec -a sleep-${t.marker}3 sleep 300"])\n  os._exit(0)\nprint("started")`,
      ),
    because: /started/,
  },
  {
    id: 'credential variables in the environment',
    category: 'environment secrets',
    command: () => 'env | grep -i canary && echo ESCAPED || echo "no canary in env"',
    because: /no canary in env/,
  },
  {
    id: 'credential variables in any /proc/*/environ',
    category: 'environment secrets',
    command: () => 'cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -i canary && echo ESCAPED || echo "no canary in environ"',
    because: /no canary in environ/,
  },
]; // biome-ignore format: one case per line reads better

/** What one case did in one mode. */
export interface HostileResult {
  id: string;
  category: string;
  mode: 'workspace-write' | 'read-only';
  /** The attack got through (ESCAPED in the output). */
  escaped: boolean;
  /** The line of output saying why it failed (matched by `because`), or the whole output. */
  reason: string;
  /** `because` matched the output. */
  expectedReason: boolean;
}

/** Judges one case's output. */
export function judge(
  testCase: HostileCase,
  mode: HostileResult['mode'],
  output: string,
): HostileResult {
  const lines = output.split('\n').map((line) => line.trim());
  const reasonLine = lines.find((line) => line && testCase.because.test(line));
  return {
    id: testCase.id,
    category: testCase.category,
    mode,
    escaped: /\bESCAPED\b/.test(output),
    reason: reasonLine ?? output.trim().slice(0, 300),
    expectedReason: reasonLine !== undefined || testCase.because.test(output),
  };
}
