// Options and results owned by @spine/tool-runtime (the shared interfaces live in @spine/protocol).
import type { ReadStateTracker } from './read-state.js';
import type { WorkspaceFs } from './workspace-fs.js';

/** Options every workspace tool takes. */
export interface WorkspaceToolOptions {
  /** Workspace root. */
  cwd: string;
  /** Glob patterns (relative to the root) the tools refuse to touch, e.g. `['.env', 'secrets/**']`. */
  exclude?: string[];
  /** File-system port; defaults to the real file system. */
  fs?: WorkspaceFs;
  /** Read-state tracker used when the runtime does not provide one in `context.services`. */
  readState?: ReadStateTracker;
}
