// A classic-BPF seccomp program, assembled here so that no native helper is needed: bubblewrap
// loads it (`--seccomp FD`) just before it executes the sandboxed command.

/** Options of {@link createSeccompFilter}. */
export interface SeccompFilterOptions {
  /**
   * Which Unix-domain sockets a command may create with `socket(AF_UNIX, …)`: `'none'` (default)
   * or `'all'`. `socketpair` stays allowed either way: it makes an unnamed pair that reaches no
   * other process, and libuv (Node), Python's asyncio and many shells need it.
   */
  unixSockets?: 'none' | 'all';
}

// BPF instruction classes and fields (linux/filter.h).
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JSET_K = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

// seccomp return actions (linux/seccomp.h).
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// struct seccomp_data offsets: nr, arch, then six 64-bit arguments from byte 16 (low word first on
// the little-endian architectures below).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;

// CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. CLONE_NEWTIME (0x80) is
// left out of the clone() check because in clone()'s flags that bit is part of the exit signal.
const CLONE_NAMESPACES = 0x7e020000;

/** Syscalls refused outright (EPERM), by name. */
export const DENIED_SYSCALLS: readonly string[] = Object.freeze([
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'keyctl',
  'add_key',
  'request_key',
  'unshare',
  'setns',
  'open_by_handle_at',
  'name_to_handle_at',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'swapon',
  'swapoff',
  'reboot',
  'acct',
  'quotactl',
  'lookup_dcookie',
]);

type SyscallTable = Readonly<Record<string, number>>;

// Numbers from the kernel's syscall tables (checked against libseccomp's resolver).
const X86_64: SyscallTable = {
  mount: 165, umount2: 166, pivot_root: 155, chroot: 161, open_tree: 428, move_mount: 429,
  fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 101,
  process_vm_readv: 310, process_vm_writev: 311, kexec_load: 246, kexec_file_load: 320,
  init_module: 175, finit_module: 313, delete_module: 176, bpf: 321, perf_event_open: 298,
  userfaultfd: 323, keyctl: 250, add_key: 248, request_key: 249, unshare: 272, setns: 308,
  open_by_handle_at: 304, name_to_handle_at: 303, io_uring_setup: 425, io_uring_enter: 426,
  io_uring_register: 427, swapon: 167, swapoff: 168, reboot: 169, acct: 163, quotactl: 179,
  lookup_dcookie: 212, clone: 56, clone3: 435, socket: 41,
}; // biome-ignore format: a table reads better packed

const AARCH64: SyscallTable = {
  mount: 40, umount2: 39, pivot_root: 41, chroot: 51, open_tree: 428, move_mount: 429,
  fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 117,
  process_vm_readv: 270, process_vm_writev: 271, kexec_load: 104, kexec_file_load: 294,
  init_module: 105, finit_module: 273, delete_module: 106, bpf: 280, perf_event_open: 241,
  userfaultfd: 282, keyctl: 219, add_key: 217, request_key: 218, unshare: 97, setns: 268,
  open_by_handle_at: 265, name_to_handle_at: 264, io_uring_setup: 425, io_uring_enter: 426,
  io_uring_register: 427, swapon: 224, swapoff: 225, reboot: 142, acct: 89, quotactl: 60,
  lookup_dcookie: 18, clone: 220, clone3: 435, socket: 198,
}; // biome-ignore format: a table reads better packed

/** One instruction before assembly; jump targets are labels, resolved by {@link assemble}. */
type Instruction = { label: string } | { code: number; k: number; jt?: string; jf?: string };

function jump(code: number, k: number, jt?: string, jf?: string): Instruction {
  const instruction: Instruction = { code, k };
  if (jt) instruction.jt = jt;
  if (jf) instruction.jf = jf;
  return instruction;
}

/** Resolves labels to forward offsets and encodes `struct sock_filter` (8 bytes each, LE). */
function assemble(program: readonly Instruction[]): Buffer {
  const labels = new Map<string, number>();
  const code: Exclude<Instruction, { label: string }>[] = [];
  for (const instruction of program) {
    if ('label' in instruction) labels.set(instruction.label, code.length);
    else code.push(instruction);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const offset = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const target = labels.get(label);
      if (target === undefined) throw new Error(`seccomp assembler: unknown label ${label}`);
      const distance = target - index - 1;
      if (distance < 0 || distance > 255) {
        throw new Error(`seccomp assembler: jump to ${label} out of range (${distance})`);
      }
      return distance;
    };
    out.writeUInt16LE(instruction.code, index * 8);
    out.writeUInt8(offset(instruction.jt), index * 8 + 2);
    out.writeUInt8(offset(instruction.jf), index * 8 + 3);
    out.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  if (code.length > 4096) throw new Error('seccomp assembler: program longer than BPF_MAXINSNS');
  return out;
}

function archSection(
  prefix: string,
  table: SyscallTable,
  options: SeccompFilterOptions,
): Instruction[] {
  const section: Instruction[] = [{ label: prefix }, jump(LD_W_ABS, OFFSET_NR)];
  if (prefix === 'x86_64') section.push(jump(JGE_K, X32_SYSCALL_BIT, 'deny')); // x32 ABI calls
  for (const name of DENIED_SYSCALLS) {
    const number = table[name];
    if (number === undefined) throw new Error(`seccomp: no ${prefix} number for ${name}`);
    section.push(jump(JEQ_K, number, 'deny'));
  }
  section.push(
    // clone3 passes its flags behind a pointer BPF cannot follow: say "not implemented" so libc
    // falls back to clone(), whose flags are checked below.
    jump(JEQ_K, table.clone3 as number, 'enosys'),
    jump(JEQ_K, table.clone as number, `${prefix}-clone`),
    jump(JEQ_K, table.socket as number, `${prefix}-socket`),
    jump(RET_K, RET_ALLOW),
    { label: `${prefix}-clone` },
    jump(LD_W_ABS, OFFSET_ARG0_LOW),
    jump(JSET_K, CLONE_NAMESPACES, 'deny'),
    jump(RET_K, RET_ALLOW),
    { label: `${prefix}-socket` },
    jump(LD_W_ABS, OFFSET_ARG0_LOW),
    jump(JEQ_K, AF_INET, 'allow'),
    jump(JEQ_K, AF_INET6, 'allow'),
    jump(JEQ_K, AF_NETLINK, 'allow'),
  );
  if (options.unixSockets === 'all') section.push(jump(JEQ_K, AF_UNIX, 'allow'));
  // Every other family (AF_UNIX unless allowed, AF_VSOCK to the hypervisor, AF_PACKET, …) is refused.
  section.push(jump(RET_K, RET_ERRNO | EPERM));
  return section;
}

/**
 * Builds the seccomp program bubblewrap installs for every sandboxed command: on x86_64 and
 * aarch64 it refuses (EPERM) mounting, namespace creation and entry (`unshare`, `setns`, `clone`
 * with namespace flags; `clone3` answers ENOSYS so libc falls back to `clone`), `ptrace` and
 * cross-process memory access, kernel module, kexec, BPF, perf, userfaultfd, keyring, io_uring and
 * file-handle calls, x32-ABI calls, and sockets other than IPv4, IPv6 and netlink (Unix sockets
 * only when `unixSockets: 'all'`). A process of any other architecture (e.g. i386 through
 * `int 0x80`) is killed.
 *
 * @returns The program as an array of `struct sock_filter`, ready to write to bwrap's `--seccomp` fd.
 * @example
 * ```ts
 * const program = createSeccompFilter({ unixSockets: 'none' });
 * ```
 */
export function createSeccompFilter(options: SeccompFilterOptions = {}): Buffer {
  return assemble([
    jump(LD_W_ABS, OFFSET_ARCH),
    jump(JEQ_K, AUDIT_ARCH_X86_64, 'x86_64'),
    jump(JEQ_K, AUDIT_ARCH_AARCH64, 'aarch64'),
    jump(RET_K, RET_KILL_PROCESS),
    ...archSection('x86_64', X86_64, options),
    ...archSection('aarch64', AARCH64, options),
    { label: 'deny' },
    jump(RET_K, RET_ERRNO | EPERM),
    { label: 'enosys' },
    jump(RET_K, RET_ERRNO | ENOSYS),
    { label: 'allow' },
    jump(RET_K, RET_ALLOW),
  ]);
}
