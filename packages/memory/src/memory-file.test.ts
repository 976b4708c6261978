import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  appendFact,
  MAX_MEMORY_BYTES,
  MEMORY_FILE_HEADER,
  type MemoryFile,
  memoryFiles,
  parseMemoryFacts,
  readMemory,
} from './memory-file.js';
import { renderMemorySection } from './memory-prompt.js';

// Temp folders this file makes, removed when it ends.
const created: string[] = [];
function track(dir: string): string {
  created.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const provenance = { sessionId: 'session-1', date: '2026-11-30' };

function files(): { root: string; user: MemoryFile; project: MemoryFile } {
  const root = track(mkdtempSync(join(tmpdir(), 'spine-memory-')));
  mkdirSync(join(root, 'ws'));
  const [user, project] = memoryFiles(join(root, 'ws'), {
    userFile: join(root, 'home', 'memory.md'),
  });
  return { root, user: user!, project: project! };
}

describe('memory files', () => {
  it('reads a missing file as empty', () => {
    const { project } = files();
    expect(readMemory(project)).toEqual({
      file: project,
      exists: false,
      text: '',
      cut: false,
      linked: false,
      facts: [],
    });
    expect(project.label).toBe('project memory (.spine/memory.md)');
  });

  it('appends a fact with the session and day that remembered it, creating .spine/', () => {
    const { project } = files();
    expect(appendFact(project, '  Tests run with npm test  ', provenance)).toEqual({
      status: 'added',
      created: true,
    });
    expect(appendFact(project, 'Use tabs', { sessionId: 'session-2', date: '2026-12-01' })).toEqual(
      {
        status: 'added',
        created: false,
      },
    );
    expect(readFileSync(project.path, 'utf8')).toBe(
      `${MEMORY_FILE_HEADER}- Tests run with npm test <!-- spine: session session-1, 2026-11-30 -->\n- Use tabs <!-- spine: session session-2, 2026-12-01 -->\n`,
    );
    expect(readMemory(project).facts).toEqual([
      { text: 'Tests run with npm test', sessionId: 'session-1', date: '2026-11-30' },
      { text: 'Use tabs', sessionId: 'session-2', date: '2026-12-01' },
    ]);
  });

  it('keeps hand-written lines as they are and appends after a last line without a newline', () => {
    const { user } = files();
    mkdirSync(join(user.path, '..'), { recursive: true });
    writeFileSync(user.path, '# My notes\n\n- I prefer short answers\nsome prose');
    appendFact(user, 'Reply in English', provenance);
    expect(readFileSync(user.path, 'utf8')).toBe(
      '# My notes\n\n- I prefer short answers\nsome prose\n- Reply in English <!-- spine: session session-1, 2026-11-30 -->\n',
    );
    expect(parseMemoryFacts(readFileSync(user.path, 'utf8'))).toEqual([
      { text: 'I prefer short answers' },
      { text: 'Reply in English', sessionId: 'session-1', date: '2026-11-30' },
    ]);
  });

  it('does not add a fact already remembered, ignoring case and whitespace', () => {
    const { user } = files();
    mkdirSync(join(user.path, '..'), { recursive: true });
    writeFileSync(user.path, '- I prefer  short answers\r\n* Written on Windows\r\n');
    expect(appendFact(user, 'i PREFER short   answers', provenance)).toEqual({
      status: 'duplicate',
    });
    expect(appendFact(user, 'written on windows', provenance)).toEqual({ status: 'duplicate' });
    appendFact(user, 'Run lint first', provenance);
    expect(appendFact(user, ' run LINT first ', provenance)).toEqual({ status: 'duplicate' });
    expect(readMemory(user).facts.map((fact) => fact.text)).toEqual([
      'I prefer  short answers',
      'Written on Windows',
      'Run lint first',
    ]);
  });

  it('refuses to grow a file past the cap and leaves it unchanged', () => {
    const { project } = files();
    mkdirSync(join(project.path, '..'));
    const full = `${'- filler fact\n'.repeat(Math.floor(MAX_MEMORY_BYTES / 14) - 1)}`;
    writeFileSync(project.path, full);
    const result = appendFact(project, 'x'.repeat(100), provenance);
    expect(result).toEqual({ status: 'full', bytes: Buffer.byteLength(full) });
    expect(readFileSync(project.path, 'utf8')).toBe(full);
    const over = `${full}${'- more\n'.repeat(500)}`;
    writeFileSync(project.path, over);
    expect(appendFact(project, 'x', provenance)).toEqual({
      status: 'full',
      bytes: Buffer.byteLength(over),
    });
  });

  it('cuts a file over the cap at a whole line when loading, with a note naming the file', () => {
    const { project } = files();
    mkdirSync(join(project.path, '..'));
    const lines = Array.from({ length: 2000 }, (_, index) => `- fact number ${index}`);
    writeFileSync(project.path, `${lines.join('\n')}\n`);
    const loaded = readMemory(project);
    expect(loaded.cut).toBe(true);
    expect(Buffer.byteLength(loaded.text)).toBeLessThan(MAX_MEMORY_BYTES + 300);
    expect(loaded.text).toContain(`[cut: ${project.path} is `);
    expect(loaded.text).toContain('Ask the person to prune it.');
    const kept = loaded.facts.map((fact) => fact.text);
    expect(kept[0]).toBe('fact number 0');
    expect(lines).toContain(`- ${kept.at(-1)}`);
    expect(kept.length).toBeLessThan(2000);
  });

  it('does not read a project memory file that is a symbolic link (user memory may be one)', () => {
    const { root, user, project } = files();
    const outside = join(root, 'outside.md');
    writeFileSync(outside, '- a secret from outside the workspace\n');
    mkdirSync(join(project.path, '..'));
    symlinkSync(outside, project.path);
    expect(readMemory(project)).toMatchObject({ exists: true, linked: true, text: '', facts: [] });
    mkdirSync(join(user.path, '..'));
    symlinkSync(outside, user.path);
    expect(readMemory(user).facts).toEqual([{ text: 'a secret from outside the workspace' }]);
  });

  it('renders one section, user memory first, each file under its path and scope', () => {
    const { user, project } = files();
    appendFact(project, 'Tests run with npm test', provenance);
    appendFact(user, 'Reply in English', provenance);
    const text = renderMemorySection([readMemory(user), readMemory(project)]);
    expect(text.startsWith('# Memory from earlier sessions\n')).toBe(true);
    expect(text).toContain(`## ${user.path} (user memory)`);
    expect(text).toContain(`## ${project.path} (project memory)`);
    expect(text.indexOf('Reply in English')).toBeLessThan(text.indexOf('Tests run with npm test'));
    const onlyProject = renderMemorySection([readMemory(files().user), readMemory(project)]);
    expect(onlyProject).not.toContain('(user memory)');
    expect(renderMemorySection([readMemory(files().user)])).toBe('');
  });
});
