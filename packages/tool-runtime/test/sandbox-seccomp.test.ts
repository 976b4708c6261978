// The seccomp program, twice: evaluated instruction by instruction here (so every syscall on both
// architectures has a checked verdict), and enforced by the kernel through real bubblewrap.
import { describe, expect, it } from 'vitest';
import { createSeccompFilter, DENIED_SYSCALLS } from '../src/seccomp-filter.js';

const ALLOW = 0x7fff0000;
const ERRNO_EPERM = 0x00050001;
const ERRNO_ENOSYS = 0x00050026;
const KILL_PROCESS = 0x80000000;
const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;

/** A classic-BPF interpreter for the instructions the program uses (ld abs, jeq/jge/jset, ret). */
function evaluate(program: Buffer, arch: number, nr: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  for (const [index, value] of args.entries()) data.writeUInt32LE(value >>> 0, 16 + index * 8);
  let accumulator = 0;
  let pc = 0;
  for (let steps = 0; steps < 10_000; steps++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        accumulator = data.readUInt32LE(k);
        pc++;
        break;
      case 0x15:
        pc += 1 + (accumulator === k ? jt : jf);
        break;
      case 0x35:
        pc += 1 + (accumulator >= k ? jt : jf);
        break;
      case 0x45:
        pc += 1 + ((accumulator & k) !== 0 ? jt : jf);
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected BPF opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('BPF program did not return');
}

const X86_NUMBERS: Record<string, number> = { mount: 165, ptrace: 101, bpf: 321, keyctl: 250, unshare: 272, setns: 308, perf_event_open: 298, io_uring_setup: 425 }; // biome-ignore format: table
const ARM_NUMBERS: Record<string, number> = { mount: 40, ptrace: 117, bpf: 280, keyctl: 219, unshare: 97, setns: 268, perf_event_open: 241, io_uring_setup: 425 }; // biome-ignore format: table

describe('the seccomp program', () => {
  const program = createSeccompFilter();
  const withUnix = createSeccompFilter({ unixSockets: 'all' });

  it('is a whole number of sock_filter entries and starts by loading the architecture', () => {
    expect(program.length % 8).toBe(0);
    expect(program.readUInt16LE(0)).toBe(0x20);
    expect(program.readUInt32LE(4)).toBe(4);
    expect(program.length / 8).toBeLessThan(4096);
  });

  it('refuses the listed syscalls with EPERM on x86_64 and aarch64, allows ordinary ones', () => {
    for (const [name, nr] of Object.entries(X86_NUMBERS))
      expect(evaluate(program, X86_64, nr), `x86_64 ${name}`).toBe(ERRNO_EPERM);
    for (const [name, nr] of Object.entries(ARM_NUMBERS))
      expect(evaluate(program, AARCH64, nr), `aarch64 ${name}`).toBe(ERRNO_EPERM);
    for (const nr of [0, 1, 2, 59, 60, 231, 257]) expect(evaluate(program, X86_64, nr)).toBe(ALLOW);
    for (const nr of [63, 64, 56, 221, 93, 94]) expect(evaluate(program, AARCH64, nr)).toBe(ALLOW);
    expect(DENIED_SYSCALLS).toEqual(expect.arrayContaining(Object.keys(X86_NUMBERS)));
  });

  it('answers clone3 with ENOSYS and refuses clone only with namespace flags', () => {
    expect(evaluate(program, X86_64, 435)).toBe(ERRNO_ENOSYS);
    expect(evaluate(program, AARCH64, 435)).toBe(ERRNO_ENOSYS);
    const fork = 0x01200011; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
    const thread = 0x003d0f00;
    for (const [arch, nr] of [[X86_64, 56], [AARCH64, 220]] as const) {
      expect(evaluate(program, arch, nr, [fork])).toBe(ALLOW);
      expect(evaluate(program, arch, nr, [thread])).toBe(ALLOW);
      for (const flag of [0x10000000, 0x20000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000])
        expect(evaluate(program, arch, nr, [fork | flag]), `flag ${flag.toString(16)}`).toBe(ERRNO_EPERM);
    }
  }); // biome-ignore format: table

  it('allows IPv4, IPv6 and netlink sockets, refuses AF_UNIX unless allowed and every other family', () => {
    for (const [arch, nr] of [[X86_64, 41], [AARCH64, 198]] as const) {
      for (const family of [2, 10, 16]) expect(evaluate(program, arch, nr, [family])).toBe(ALLOW);
      expect(evaluate(program, arch, nr, [1])).toBe(ERRNO_EPERM);
      expect(evaluate(withUnix, arch, nr, [1])).toBe(ALLOW);
      for (const family of [17, 40, 31, 38]) {
        expect(evaluate(program, arch, nr, [family])).toBe(ERRNO_EPERM);
        expect(evaluate(withUnix, arch, nr, [family])).toBe(ERRNO_EPERM);
      }
    }
    // socketpair stays allowed (no way to reach another process through it).
    expect(evaluate(program, X86_64, 53, [1])).toBe(ALLOW);
    expect(evaluate(program, AARCH64, 199, [1])).toBe(ALLOW);
  }); // biome-ignore format: table

  it('kills foreign-architecture calls and refuses x32 ABI calls', () => {
    expect(evaluate(program, I386, 1)).toBe(KILL_PROCESS);
    expect(evaluate(program, 0x12345678, 0)).toBe(KILL_PROCESS);
    expect(evaluate(program, X86_64, 0x40000000 + 1)).toBe(ERRNO_EPERM);
  });
});
