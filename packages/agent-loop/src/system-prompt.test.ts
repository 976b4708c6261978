import { describe, expect, it } from 'vitest';
import { SystemPrompt } from './system-prompt.js';

describe('SystemPrompt', () => {
  it('joins sections by order, fills variables and keeps runtime contexts out of the system text', () => {
    const prompt = new SystemPrompt('You are {{name}}.');
    prompt.register({
      id: 'rules',
      sections: [
        { id: 'late', text: 'Be brief.', order: 200 },
        { id: 'early', text: 'Read before editing.', order: 50 },
      ],
      variables: { name: 'Spine' },
      contexts: () => ({ cwd: '/work', branch: undefined }),
    });
    const snapshot = prompt.assemble({
      tools: [{ name: 'read', description: 'r', parameters: {} }],
    });
    expect(snapshot.system).toBe('You are Spine.\n\nRead before editing.\n\nBe brief.');
    expect(snapshot.contexts).toEqual({ cwd: '/work', tools: 'read' });
    expect(Object.keys(snapshot.contexts)).toEqual(['cwd', 'tools']);
    expect(snapshot.systemHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('keeps the same hash while the text is unchanged and drops a contribution on unregister', () => {
    const prompt = new SystemPrompt('base');
    const first = prompt.assemble();
    const off = prompt.register({ id: 'plugin', sections: [{ id: 's', text: 'plugin rules' }] });
    const second = prompt.assemble();
    expect(second.systemHash).not.toBe(first.systemHash);
    off();
    expect(prompt.assemble().systemHash).toBe(first.systemHash);
    expect(prompt.contributionIds()).toEqual(['base']);
  });

  it('replaces a contribution registered again under the same id', () => {
    const prompt = new SystemPrompt();
    prompt.register({ id: 'x', sections: [{ id: 'a', text: 'one' }] });
    const off = prompt.register({ id: 'x', sections: [{ id: 'a', text: 'two' }] });
    expect(prompt.assemble().system).toBe('two');
    off();
    expect(prompt.assemble().system).toBe('');
  });
});
