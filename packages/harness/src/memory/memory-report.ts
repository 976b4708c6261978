import { MAX_MEMORY_BYTES, type MemoryFact, type MemoryFile, readMemory } from '@spine/memory';
import { visibleText } from '@spine/protocol';

/** One memory file as `/memory` and `spine memory` show it. */
export interface MemoryFileReport {
  /** `user` or `project`. */
  scope: MemoryFile['scope'];
  /** Absolute path. */
  path: string;
  /** Whether the file exists yet. */
  exists: boolean;
  /** True when the file is over the cap and only its first part is loaded. */
  cut: boolean;
  /** True for a project file that is a symbolic link (not read). */
  linked: boolean;
  /** The facts, in file order, with their provenance. */
  facts: MemoryFact[];
}

/** What `spine memory --json` prints. */
export interface MemoryReport {
  /** `memory.enabled`. */
  enabled: boolean;
  /** User memory first, then project memory. */
  files: MemoryFileReport[];
  /** When edits take effect. */
  note: string;
}

const NOTE =
  'Edit or delete lines in these files to change what is remembered (deleting a line forgets it); changes apply from the next session.';

/** Reads the memory files as they are on disk now. */
export function memoryReport(files: readonly MemoryFile[], enabled: boolean): MemoryReport {
  return {
    enabled,
    files: files.map((file) => {
      const loaded = readMemory(file);
      return {
        scope: file.scope,
        path: file.path,
        exists: loaded.exists,
        cut: loaded.cut,
        linked: loaded.linked,
        facts: loaded.facts,
      };
    }),
    note: NOTE,
  };
}

/** Renders a {@link MemoryReport} for the terminal: each file's path, then its facts. */
export function formatMemoryReport(report: MemoryReport): string {
  const lines: string[] = [];
  if (!report.enabled)
    lines.push('memory is off (memory.enabled is false): no section, no remember tool');
  for (const file of report.files) {
    const state = !file.exists
      ? 'no file yet'
      : file.linked
        ? 'a symbolic link: not read; replace it with a plain file'
        : `${file.facts.length} fact${file.facts.length === 1 ? '' : 's'}${file.cut ? `, over the ${MAX_MEMORY_BYTES}-byte cap: only the first part loads` : ''}`;
    lines.push(`${file.scope} memory: ${visibleText(file.path)} (${state})`);
    for (const fact of file.facts) {
      const source = fact.sessionId ? `session ${fact.sessionId}, ${fact.date}` : 'hand-written';
      // Facts come from the model or from a file in the repository: never raw to the terminal.
      lines.push(`  - ${visibleText(fact.text)}  [${visibleText(source)}]`);
    }
  }
  lines.push(report.note);
  return `${lines.join('\n')}\n`;
}
