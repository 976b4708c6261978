import {
  appendFileSync,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Which memory a fact belongs to: this workspace, or the person across every workspace. */
export type MemoryScope = 'project' | 'user';

/** One memory file: where it is and how tool results name it. */
export interface MemoryFile {
  /** `project` (`<workspace>/.spine/memory.md`) or `user` (`<configHome>/memory.md`). */
  scope: MemoryScope;
  /** Absolute path. */
  path: string;
  /**
   * How tool results name the file: no absolute path, so a rerun in another workspace (or with
   * another user file) renders the same result.
   */
  label: string;
}

/** One remembered fact: a `- ` bullet line, with the provenance Spine wrote after it, if any. */
export interface MemoryFact {
  /** The fact as written (without the bullet and the provenance comment). */
  text: string;
  /** The session that remembered it (absent for hand-written lines). */
  sessionId?: string;
  /** The day it was remembered (`YYYY-MM-DD`). */
  date?: string;
}

/** A memory file as read at the start of a session. */
export interface LoadedMemory {
  /** The file read. */
  file: MemoryFile;
  /** Whether the file exists. */
  exists: boolean;
  /** The text that enters the prompt (cut at {@link MAX_MEMORY_BYTES}, with a note naming the file). */
  text: string;
  /** True when the file is longer than the cap and was cut. */
  cut: boolean;
  /** True for a project file that is (or sits in) a symbolic link: it is not read. */
  linked: boolean;
  /** The facts in `text`. */
  facts: MemoryFact[];
}

/** Each memory file is read (and grown by `remember`) up to this many bytes. */
export const MAX_MEMORY_BYTES = 16 * 1024;

/** The longest fact `remember` accepts, in characters. */
export const MAX_FACT_CHARS = 500;

/** The first line of a memory file Spine creates: what the file is and how to edit it. */
export const MEMORY_FILE_HEADER =
  '<!-- Spine memory: one fact per "- " line, each followed by the session that remembered it. Edit or delete lines freely (deleting one forgets it); changes apply from the next session. -->\n';

const PROVENANCE = /\s*<!--\s*spine:\s*session\s+([^,\s]+),\s*(\d{4}-\d{2}-\d{2})\s*-->\s*$/;

/**
 * Where project memory lives, relative to the workspace. It sits among protected paths (`.spine/**`
 * in `@spine/tool-runtime`), so only the `remember` tool should be let write it under the policy.
 */
export const PROJECT_MEMORY_PATH = '.spine/memory.md';

/** The two memory files of a workspace: user memory first, then project memory. */
export function memoryFiles(cwd: string, options: { userFile: string }): MemoryFile[] {
  return [
    { scope: 'user', path: options.userFile, label: 'user memory' },
    {
      scope: 'project',
      path: join(cwd, ...PROJECT_MEMORY_PATH.split('/')),
      label: 'project memory (.spine/memory.md)',
    },
  ];
}

/** A fact's identity for de-duplication: case- and whitespace-insensitive. */
export function normalizeFact(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The facts in a memory file's text: every `- ` (or `* `) bullet line, provenance split off. */
export function parseMemoryFacts(text: string): MemoryFact[] {
  const facts: MemoryFact[] = [];
  for (const line of text.split(/\r?\n/)) {
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (!bullet) continue;
    const provenance = PROVENANCE.exec(bullet[1]!);
    const fact: MemoryFact = {
      text: (provenance ? bullet[1]!.slice(0, provenance.index) : bullet[1]!).trim(),
    };
    if (provenance) {
      fact.sessionId = provenance[1]!;
      fact.date = provenance[2]!;
    }
    if (fact.text) facts.push(fact);
  }
  return facts;
}

/** Renders one fact as Spine writes it: the bullet, then its provenance comment. */
export function formatFact(fact: string, provenance: { sessionId: string; date: string }): string {
  return `- ${fact.trim()} <!-- spine: session ${provenance.sessionId}, ${provenance.date} -->\n`;
}

/**
 * Reads a memory file for the prompt (at most {@link MAX_MEMORY_BYTES} of it). A missing file is
 * empty; a longer one is cut at the last whole line before the cap, with a note naming it. A
 * project file that is a symbolic link (or inside a linked `.spine/`) is not read: it could
 * bring a file from outside the workspace into the prompt.
 */
export function readMemory(file: MemoryFile): LoadedMemory {
  const empty = { file, text: '', cut: false, facts: [] };
  if (file.scope === 'project' && isLinked(file.path))
    return { ...empty, exists: true, linked: true };
  let head: Buffer;
  let size: number;
  try {
    const fd = openSync(file.path, 'r');
    try {
      size = fstatSync(fd).size;
      head = Buffer.alloc(Math.min(size, MAX_MEMORY_BYTES));
      head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return { ...empty, exists: false, linked: false };
  }
  const cut = size > MAX_MEMORY_BYTES;
  let text = head.toString('utf8');
  if (cut) {
    const lastNewline = head.lastIndexOf(0x0a);
    text = `${head.subarray(0, lastNewline > 0 ? lastNewline : head.length).toString('utf8')}\n[cut: ${file.path} is ${size} bytes, over the ${MAX_MEMORY_BYTES}-byte cap; the rest was not loaded. Ask the person to prune it.]`;
  }
  return { file, exists: true, text, cut, linked: false, facts: parseMemoryFacts(text) };
}

/** What {@link appendFact} did. */
export type AppendFactResult =
  | {
      /** The fact was appended. */
      status: 'added';
      /** True when the file was created for it. */
      created: boolean;
    }
  | {
      /** The same fact is already in the file; nothing was written. */
      status: 'duplicate';
    }
  | {
      /** The file is at the size cap; nothing was written. */
      status: 'full';
      /** The file's size in bytes. */
      bytes: number;
    };

/**
 * Appends one fact with its provenance, creating the file (and its folder) when missing. An
 * identical fact already in the file (case- and whitespace-insensitive) is not added again; a
 * file that would pass {@link MAX_MEMORY_BYTES} is left as it is. Hand-written lines are kept.
 *
 * @throws an {@link Error} when the file cannot be read or written (the tool reports it to the
 *   model).
 */
export function appendFact(
  file: MemoryFile,
  fact: string,
  provenance: { sessionId: string; date: string },
): AppendFactResult {
  let current: string | undefined;
  try {
    // A file already over the cap is full: no need to read all of it.
    const size = statSync(file.path).size;
    if (size > MAX_MEMORY_BYTES) return { status: 'full', bytes: size };
    current = readFileSync(file.path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = normalizeFact(fact);
  if (current !== undefined && parseMemoryFacts(current).some((f) => normalizeFact(f.text) === key))
    return { status: 'duplicate' };
  const separator = current === undefined || current === '' || current.endsWith('\n') ? '' : '\n';
  const addition = `${current === undefined ? MEMORY_FILE_HEADER : separator}${formatFact(fact, provenance)}`;
  const bytes = Buffer.byteLength(current ?? '') + Buffer.byteLength(addition);
  if (bytes > MAX_MEMORY_BYTES) return { status: 'full', bytes: Buffer.byteLength(current ?? '') };
  mkdirSync(dirname(file.path), { recursive: true });
  appendFileSync(file.path, addition);
  return { status: 'added', created: current === undefined };
}

/** True when `path` or its folder is a symbolic link (a project file must not lead elsewhere). */
export function isLinked(path: string): boolean {
  for (const candidate of [path, dirname(path)]) {
    try {
      if (lstatSync(candidate).isSymbolicLink()) return true;
    } catch {
      // Missing: created as a plain file or folder.
    }
  }
  return false;
}
