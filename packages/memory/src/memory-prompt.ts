import { type LoadedMemory, type MemoryFile, readMemory } from './memory-file.js';

/** The system-prompt section's heading. */
export const MEMORY_SECTION_TITLE = 'Memory from earlier sessions';

/**
 * Reads every memory file once, for one session's system prompt. The result is fixed for the
 * session: `remember` writes during it do not change the prompt (a stable request prefix, so the
 * provider's prompt cache holds); they apply from the next session.
 */
export function loadMemories(files: readonly MemoryFile[]): LoadedMemory[] {
  return files.map((file) => readMemory(file));
}

/**
 * Renders the loaded memory files as one system-prompt section, each under its path and scope
 * (user first, then project), so every remembered fact has a traceable source. Files that are
 * missing or blank are left out; returns '' when nothing is left.
 */
export function renderMemorySection(memories: readonly LoadedMemory[]): string {
  const parts = memories
    .filter((memory) => memory.text.trim() !== '')
    .map(
      (memory) => `## ${memory.file.path} (${memory.file.scope} memory)\n\n${memory.text.trim()}`,
    );
  if (parts.length === 0) return '';
  return [
    `# ${MEMORY_SECTION_TITLE}`,
    '',
    'Facts remembered in earlier sessions (with the `remember` tool, or written by the person). Use them as background; they may be out of date, and the workspace and what the user says now come first. The comment after a fact names the session that remembered it.',
    '',
    parts.join('\n\n'),
  ].join('\n');
}
