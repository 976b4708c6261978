import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findInstructionFiles, renderInstructions } from './instructions.js';

describe('project instructions', () => {
  it('collects the user file and AGENTS.md from the repository root down to the workspace', () => {
    const root = mkdtempSync(join(tmpdir(), 'spine-agents-'));
    const repo = join(root, 'repo');
    const workspace = join(repo, 'packages', 'app');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(root, 'AGENTS.md'), 'outside the repository');
    writeFileSync(join(repo, 'AGENTS.md'), 'use tabs');
    writeFileSync(join(workspace, 'AGENTS.md'), 'run npm test');
    writeFileSync(join(root, 'user.md'), 'be brief');
    const files = findInstructionFiles(workspace, { userFile: join(root, 'user.md') });
    expect(files.map((file) => file.content)).toEqual(['be brief', 'use tabs', 'run npm test']);
    const text = renderInstructions(files);
    expect(text).toContain(`## ${join(repo, 'AGENTS.md')} (project)`);
    expect(text.indexOf('use tabs')).toBeLessThan(text.indexOf('run npm test'));
    expect(renderInstructions([])).toBe('');
  });
});
