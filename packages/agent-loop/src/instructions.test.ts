import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createInstructionsContribution,
  findInstructionFiles,
  renderInstructions,
} from './instructions.js';
import { SystemPrompt } from './system-prompt.js';

describe('project instructions', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('collects the user file and AGENTS.md from the repository root down to the workspace', () => {
    const root = mkdtempSync(join(tmpdir(), 'spine-agents-'));
    folders.push(root);
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

  it('contributes the rendered files as the agents-md section, and nothing without files', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'spine-agents-'));
    folders.push(workspace);
    mkdirSync(join(workspace, '.git'));
    expect(createInstructionsContribution({ cwd: workspace })).toBeUndefined();
    writeFileSync(join(workspace, 'AGENTS.md'), 'run npm test');
    const contribution = createInstructionsContribution({ cwd: workspace });
    const prompt = new SystemPrompt('base');
    prompt.register(contribution!);
    const { system } = prompt.assemble({ tools: [] });
    expect(system).toContain(renderInstructions(findInstructionFiles(workspace)));
    expect(system.indexOf('base')).toBeLessThan(system.indexOf('run npm test'));
  });
});
