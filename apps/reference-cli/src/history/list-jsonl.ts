// The sessions of a JSONL session folder for `spine sessions` and `spine serve`: session-log lists
// them with a problem row for each file it cannot open as a session (so one bad file cannot hide
// the others); this puts each problem into the words both commands show.

import type { SessionSummary } from '@spine/protocol';
import { type JsonlFileProblem, listJsonlSessions } from '@spine/session-log';
import { systemReason } from '../system-reasons.js';

/** A `*.jsonl` file of the folder that is listed but cannot be opened as a session. */
export interface SessionFileProblem {
  /** The file name (raw: escape it before printing). */
  name: string;
  /** Why it cannot be opened, e.g. "could not be read: permission denied (EACCES)". */
  reason: string;
}

/** What {@link listSessionFolder} returns. */
export interface JsonlListing {
  /** The readable sessions, newest first. */
  summaries: SessionSummary[];
  /** The files that are not openable sessions, newest first. */
  problems: SessionFileProblem[];
}

/**
 * Lists the sessions of folder `dir`, newest first, at most `limit` of them, and the `*.jsonl`
 * files that cannot be opened as sessions with the reason in words. Never throws for one file.
 */
export function listSessionFolder(dir: string, options: { limit?: number } = {}): JsonlListing {
  const { summaries, problems } = listJsonlSessions(dir, options);
  return {
    summaries,
    problems: problems.map((problem) => ({
      name: `${problem.id}.jsonl`,
      reason: problemReason(problem),
    })),
  };
}

/** Why a file is not an openable session, for a person. */
function problemReason(problem: JsonlFileProblem): string {
  switch (problem.reason) {
    case 'invalid-id':
      return 'not a valid session id (letters, digits, . _ - only): no command opens it';
    case 'directory':
      return 'a directory, not a session log';
    case 'empty':
      return 'empty file: not a session log yet';
    case 'not-a-session':
      return 'not a session log: its first line is not a session header';
    case 'unreadable': {
      const code = problem.code ? ` (${problem.code})` : '';
      return `could not be read: ${systemReason(problem.code ?? '')}${code}`;
    }
  }
}
