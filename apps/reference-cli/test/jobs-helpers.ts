import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(marker)) found.push(Number(name));
    } catch {
      // ended while scanning
    }
  }
  return found;
}
