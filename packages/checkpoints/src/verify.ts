// Verified outcomes of tool calls a crash left without a result. A file tool's change is judged
// by the file's hash now against the hash before the call and the hash it meant to write; a shell
// command's by the workspace now against the checkpoint taken before its step.

import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { outcomeUnknownText } from '@spine/protocol';
import type { CheckpointStore, WorkspaceChange } from './checkpoint-store.js';

/** The hash file tools record (`sha256:` + hex of the bytes); `null` stands for "no file". */
export function contentHash(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** The verdict on an interrupted call, with its evidence. */
export type OutcomeVerdict =
  | { verdict: 'applied'; path: string; hash: string | null }
  | { verdict: 'not-applied'; path: string; hash: string | null }
  | {
      verdict: 'changed-elsewhere';
      path: string;
      hash: string | null;
      before: string | null;
      intended: string | null;
    }
  | { verdict: 'files-changed'; checkpoint: string; changes: WorkspaceChange[] }
  | { verdict: 'unknown'; reason: string };

/** The hash of `path` in `workspace` now (`null` when there is no file). */
async function currentHash(workspace: string, path: string): Promise<string | null> {
  try {
    return contentHash(await fs.readFile(join(workspace, path)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Judges an interrupted file change: `applied` when the file now has the content the call meant
 * to write, `not-applied` when it still has the content from before, `changed-elsewhere` when it
 * has neither. When before and intended are the same the check cannot tell: `unknown`.
 */
export async function verifyFileChange(input: {
  workspace: string;
  path: string;
  /** Hash before the call (`null`: the file did not exist). */
  before: string | null;
  /** Hash the call meant to leave (`null`: it meant to delete the file). */
  intended: string | null;
}): Promise<OutcomeVerdict> {
  const { path, before, intended } = input;
  if (before === intended) {
    return { verdict: 'unknown', reason: `the call would not have changed ${path}` };
  }
  const hash = await currentHash(input.workspace, path);
  if (hash === intended) return { verdict: 'applied', path, hash };
  if (hash === before) return { verdict: 'not-applied', path, hash };
  return { verdict: 'changed-elsewhere', path, hash, before, intended };
}

/** Judges an interrupted command: the workspace files it changed since the step's checkpoint. */
export async function verifyCommand(input: {
  store: CheckpointStore;
  checkpoint: string;
}): Promise<OutcomeVerdict> {
  const changes = await input.store.diff(input.checkpoint);
  return { verdict: 'files-changed', checkpoint: input.checkpoint, changes };
}

const shortHash = (hash: string | null) => (hash === null ? 'no file' : hash.slice(0, 19));
const KIND_LETTER = { added: 'A', modified: 'M', deleted: 'D', mode: 'T' } as const;

/**
 * The tool result the model sees for a verified outcome, replacing "outcome unknown" when the
 * check was conclusive.
 */
export function verdictText(verdict: OutcomeVerdict): string {
  const lead = 'verified after the process stopped while this tool was running:';
  switch (verdict.verdict) {
    case 'applied':
      return `${lead} applied. ${verdict.path} has the content this call meant to leave (${shortHash(verdict.hash)}). Do not repeat it.`;
    case 'not-applied':
      return `${lead} not applied. ${verdict.path} still has the content it had before this call (${shortHash(verdict.hash)}). Run it again if it is still needed.`;
    case 'changed-elsewhere':
      return `${lead} changed by something else. ${verdict.path} (${shortHash(verdict.hash)}) matches neither its content before this call (${shortHash(verdict.before)}) nor what the call meant to leave (${shortHash(verdict.intended)}). Read it before changing it.`;
    case 'files-changed': {
      if (verdict.changes.length === 0) {
        return `${lead} no workspace file changed since the checkpoint before this step. Effects outside the workspace (network, other folders) cannot be checked.`;
      }
      const shown = verdict.changes
        .slice(0, 50)
        .map((change) => `${KIND_LETTER[change.kind]} ${change.path}`)
        .join(', ');
      const more = verdict.changes.length > 50 ? `, and ${verdict.changes.length - 50} more` : '';
      return `${lead} the command changed these workspace files before it stopped (compared with the checkpoint before this step): ${shown}${more}. Effects outside the workspace (network, other folders) cannot be checked; verify them before retrying.`;
    }
    case 'unknown':
      return outcomeUnknownText(`the process stopped (${verdict.reason})`);
  }
}
