import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTmpDir } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { describeProfiles, withChildUsage } from './tree.js';
import { loadCliProfiles, profileDirs } from './wiring.js';

describe('CLI subagent profiles', () => {
  it('reads ~/.spine/agents then the project’s .spine/agents; the project wins; bad files are skipped with a warning', async () => {
    await withTmpDir(async (root) => {
      const home = join(root, 'home');
      const project = join(root, 'project');
      const previous = process.env.HOME;
      process.env.HOME = home;
      try {
        expect(profileDirs(project)).toEqual([
          join(home, '.spine/agents'),
          join(project, '.spine/agents'),
        ]);
        mkdirSync(join(home, '.spine/agents'), { recursive: true });
        mkdirSync(join(project, '.spine/agents'), { recursive: true });
        const file = (name: string, description: string) =>
          `---\nname: ${name}\ndescription: ${description}\ntools: Read\nsandbox: read-only\n---\nPrompt.\n`;
        writeFileSync(join(home, '.spine/agents/reviewer.md'), file('reviewer', 'User reviewer'));
        writeFileSync(
          join(project, '.spine/agents/reviewer.md'),
          file('reviewer', 'Project reviewer'),
        );
        writeFileSync(join(project, '.spine/agents/bad.md'), '---\nname: bad\n---\nx\n');
        const warnings: string[] = [];
        const profiles = await loadCliProfiles(project, (message) => warnings.push(message));
        expect(profiles.map((p) => p.name)).toEqual(['explore', 'general', 'reviewer']);
        expect(profiles[2]?.description).toBe('Project reviewer');
        expect(warnings).toEqual([expect.stringContaining('bad.md: description: missing')]);
        const listing = await describeProfiles(project);
        expect(listing).toContain('reviewer     Project reviewer [read-only; read;');
        expect(listing).toContain('warning: agent profile skipped:');
      } finally {
        if (previous === undefined) delete process.env.HOME;
        else process.env.HOME = previous;
      }
    });
  });

  it('adds the usage each agent/child/end reports to the session’s own', () => {
    const own = { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 2 };
    const child = { inputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 0, outputTokens: 1 };
    const events = [
      { seq: 1, type: 'agent/child/end', at: '', body: { usage: child } },
      { seq: 2, type: 'agent/child/end', at: '', body: {} },
    ];
    expect(withChildUsage(own, events)).toEqual({
      inputTokens: 15,
      cacheReadTokens: 3,
      cacheWriteTokens: 0,
      outputTokens: 3,
    });
  });
});
