// bwrap binds an empty read-only folder over each missing protected folder (`.spine`, …) and has
// to create that mount point in the workspace first. A folder the workspace did not have must not
// stay behind: the ones this process made are removed (when still empty) as it exits. Not after
// each command: a parked spare sandbox recreates them, and its arguments must stay valid.

import type { ChildProcess } from 'node:child_process';
import { existsSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxCommand } from '../sandbox.js';
import { protectedMounts } from './protected-mounts.js';

const seen = new Set<string>();
const ours: string[] = [];
let hooked = false;

/** Removes the mount points this process created, deepest first, if they are still empty. */
export function removeCreatedMountPoints(): void {
  const deepestFirst = [...ours].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const path of deepestFirst) {
    try {
      rmdirSync(path);
      ours.splice(ours.indexOf(path), 1);
    } catch {
      // Not empty (someone wrote there), already gone, or busy: leave it.
    }
  }
}

/**
 * Runs `spawn` for `command` and remembers which mount points its sandbox will create (missing
 * protected folders, seen missing the first time), to remove at process exit.
 */
export function spawnLeavingNoMountPoints(
  command: SandboxCommand,
  protectedPaths: readonly string[],
  spawn: () => ChildProcess,
): ChildProcess {
  if (command.mode === 'workspace-write' && protectedPaths.length > 0) {
    for (const path of protectedMounts(command.workspace, protectedPaths).missingDirectories) {
      const absolute = join(command.workspace, path);
      if (seen.has(absolute)) continue;
      seen.add(absolute);
      if (!existsSync(absolute)) ours.push(absolute);
    }
    if (ours.length > 0 && !hooked) {
      hooked = true;
      process.once('exit', removeCreatedMountPoints);
    }
  }
  return spawn();
}
