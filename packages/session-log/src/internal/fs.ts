// node:fs without its ESM facade. `import … from 'node:fs'` in an ES module makes Node build the
// module's ESM namespace, which reads every export and so loads fs/promises and the stream classes
// (about 2 ms, some 3% of a bare `node -e 0`) that this package never uses; issue 16 holds
// `import '@spine/session-log'` to 1.3× `node -e 0`. `process.getBuiltinModule` (Node ≥ 20.16)
// returns the same functions without the facade.
const fs = process.getBuiltinModule('node:fs');

export const {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} = fs;

/** Makes a newly created entry of directory `path` durable (Linux allows fsync on a directory). */
export function syncDirectory(path: string): void {
  const fd = fs.openSync(path, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
