#!/usr/bin/env node
// Mimics the rustup proxy `rust-analyzer` when the component is not installed: whatever the
// arguments (`--version` included), it prints an error, a note and a long backtrace-like tail,
// and exits 1.
process.stderr.write(
  "error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\n" +
    'To install, run `rustup component add rust-analyzer`\n' +
    'stack backtrace:\n' +
    Array.from({ length: 40 }, (_, index) => `  ${index}: 0x55d0c0ffee${index}`).join('\n') +
    '\nnote: run with `RUST_BACKTRACE=full` for a verbose backtrace.\n',
);
process.exit(1);
