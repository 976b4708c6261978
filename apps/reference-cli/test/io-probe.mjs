// Preloaded (NODE_OPTIONS=--import) into a `spine` process by resume-reads.test.ts: when the
// process exits, appends its pid and the bytes it read through read syscalls (`rchar` of
// /proc/self/io: page-cache hits included, so a log read from memory still counts) to the file
// SPINE_IO_PROBE names.
import { appendFileSync, readFileSync } from 'node:fs';

const report = process.env.SPINE_IO_PROBE;
if (report) {
  process.on('exit', () => {
    const rchar = /rchar:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? '-1';
    appendFileSync(report, `${process.pid} ${rchar}\n`);
  });
}
