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

describe('SystemPrompt snapshots', () => {
  const read = { name: 'read', description: 'r', parameters: {} };
  const edit = { name: 'edit', description: 'e', parameters: {} };

  it('returns the previous snapshot while contributions, contexts and tools are unchanged', () => {
    const prompt = new SystemPrompt('base {{x}}');
    let branch = 'main';
    prompt.register({ id: 'ctx', contexts: () => ({ branch }), variables: { x: '1' } });
    const first = prompt.assemble({ tools: [read, edit] });
    // A scheduler builds a fresh array each step: the same specs in order count as unchanged.
    const second = prompt.assemble({ tools: [read, edit] });
    expect(second).toBe(first);
    expect(Object.isFrozen(second.contexts)).toBe(true);
    branch = 'dev';
    const third = prompt.assemble({ tools: [read, edit] });
    expect(third).not.toBe(first);
    expect(third.contexts).toEqual({ branch: 'dev', tools: 'read, edit' });
    expect(third.tools).toBe(first.tools);
    expect(third.systemHash).toBe(first.systemHash);
    const fourth = prompt.assemble({ tools: [edit] });
    expect(fourth.contexts.tools).toBe('edit');
    expect(fourth.tools).toEqual([edit]);
  });

  it('re-renders when variables or contributions change', () => {
    const prompt = new SystemPrompt('base {{x}}');
    let x = '1';
    prompt.register({ id: 'vars', variables: () => ({ x }) });
    expect(prompt.assemble().system).toBe('base 1');
    x = '2';
    expect(prompt.assemble().system).toBe('base 2');
    const off = prompt.register({ id: 'more', sections: [{ id: 'm', text: 'more' }] });
    expect(prompt.assemble().system).toBe('base 2\n\nmore');
    off();
    expect(prompt.assemble().system).toBe('base 2');
  });

  it('keeps a context named tools from a contribution over the tool names', () => {
    const prompt = new SystemPrompt();
    prompt.register({ id: 'ctx', contexts: () => ({ tools: 'custom' }) });
    expect(prompt.assemble({ tools: [read] }).contexts.tools).toBe('custom');
    expect(prompt.assemble({ tools: [read] }).contexts.tools).toBe('custom');
  });
});
