// Parsing of `git diff-tree -r -z --raw --no-renames` output into WorkspaceChange values.

import type { ChangeKind, WorkspaceChange } from '../checkpoint-store.js';

const ZERO = /^0+$/;
/** Mode of a gitlink (a nested repository): never recorded or restored by the store. */
const GITLINK = '160000';

/** Turns raw NUL-separated diff-tree records into changes (gitlinks left out). */
export function parseRawDiff(fields: readonly string[]): WorkspaceChange[] {
  const changes: WorkspaceChange[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const header = fields[index] as string;
    const path = fields[index + 1] as string;
    const [srcMode, dstMode, srcId, dstId, status] = header.replace(/^:/, '').split(' ');
    if (!srcMode || !dstMode || !srcId || !dstId || !status) continue;
    if (srcMode === GITLINK || dstMode === GITLINK) continue;
    const beforeExists = !ZERO.test(srcMode);
    const afterExists = !ZERO.test(dstMode);
    let kind: ChangeKind;
    if (!beforeExists) kind = 'added';
    else if (!afterExists) kind = 'deleted';
    else kind = srcId === dstId ? 'mode' : 'modified';
    const change: WorkspaceChange = { path, kind };
    if (beforeExists) change.before = { mode: srcMode, id: srcId };
    if (afterExists) change.after = { mode: dstMode, id: dstId };
    changes.push(change);
  }
  return changes;
}

/** Escapes a workspace-relative path as an anchored, literal gitignore pattern. */
export function literalIgnorePattern(path: string): string {
  return `/${path.replace(/[\\*?[\]!# ]/g, (character) => `\\${character}`)}`;
}
