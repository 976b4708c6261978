import { createHash, randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { SpineError, type ToolExecutionContext, type ToolOutput } from '@spine/protocol';
import { type ResolvedWorkspacePath, resolveWorkspacePath } from '../path-guard.js';
import {
  createReadStateTracker,
  READ_STATE_SERVICE,
  type ReadStateTracker,
} from '../read-state.js';
import type { WorkspaceToolOptions } from '../types.js';
import { nodeWorkspaceFs, type WorkspaceFs } from '../workspace-fs.js';

/** Resolved defaults shared by the tool factories. */
export interface ToolSupport {
  cwd: string;
  exclude: string[];
  fs: WorkspaceFs;
  tracker(context: ToolExecutionContext): ReadStateTracker;
  resolve(path: string, kind?: 'file' | 'directory' | 'any'): Promise<ResolvedWorkspacePath>;
}

function isTracker(value: unknown): value is ReadStateTracker {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ReadStateTracker).check === 'function'
  );
}

/** Fills in defaults once per factory. */
export function toolSupport(options: WorkspaceToolOptions): ToolSupport {
  const fs = options.fs ?? nodeWorkspaceFs;
  const exclude = options.exclude ?? [];
  const fallback = options.readState ?? createReadStateTracker();
  return {
    cwd: options.cwd,
    exclude,
    fs,
    tracker: (context) => {
      const service = context.services?.[READ_STATE_SERVICE];
      return isTracker(service) ? service : fallback;
    },
    resolve: (path, kind = 'any') => resolveWorkspacePath(options.cwd, path, { exclude, kind, fs }),
  };
}

/** Turns an expected failure (refused path, stale file …) into an error output for the model. */
export function failureOutput(error: unknown): ToolOutput {
  const content =
    SpineError.isInstance(error) || error instanceof Error ? error.message : String(error);
  return { content, isError: true };
}

/** Refusal for a change while the sandbox is read-only. */
export function readOnlyRefusal(path: string): ToolOutput {
  return {
    content: `Refused to change ${path}: the sandbox is read-only. Ask the user to switch the sandbox to workspace-write if the change is needed.`,
    isError: true,
  };
}

/** Writes a file atomically (temp file in the same directory, then rename), keeping its mode. */
export async function writeAtomically(
  fs: WorkspaceFs,
  path: string,
  content: string,
): Promise<void> {
  let mode: number | undefined;
  try {
    mode = (await fs.stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  await fs.mkdir(dirname(path), { recursive: true });
  const temporary = join(
    dirname(path),
    `.${basename(path)}.spine-${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await fs.writeFile(temporary, content, mode === undefined ? undefined : { mode });
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Reads a file, or `undefined` when it does not exist. */
export async function readIfExists(fs: WorkspaceFs, path: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** True when the bytes look binary (a NUL in the first 8 KiB). */
export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, 8192);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}

/**
 * The content hash file tools record as `preHash`/`postHash` in their result metadata:
 * `sha256:` and the hex digest of the bytes (a string is hashed as UTF-8). Crash verification
 * (@spine/checkpoints) compares a file's current hash with these.
 */
export function contentHash(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}
