// The scratch user memory of a rerun. Its own module: it needs no memory or tool-runtime code, so
// importing the harness does not load them (see memory-wiring.ts for the session's memory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpineConfig } from '../config/schema.js';

/** What {@link scratchUserMemory} returns. */
export interface ScratchMemory {
  /** The configuration with `memory.userFile` in a temporary folder. */
  config: SpineConfig;
  /** Removes the temporary folder. */
  dispose(): void;
}

/**
 * The configuration with the user memory file pointed at an empty temporary file, for runs that
 * must never read or write the person's real user memory (`spine rerun`). `dispose` removes it.
 */
export function scratchUserMemory(config: SpineConfig): ScratchMemory {
  const dir = mkdtempSync(join(tmpdir(), 'spine-memory-'));
  return {
    config: { ...config, memory: { ...config.memory, userFile: join(dir, 'memory.md') } },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
