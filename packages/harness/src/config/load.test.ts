import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidConfigError } from '../errors.js';
import { formatEffectiveConfig } from './format.js';
import { loadConfig } from './load.js';

// Temporary folders made by these tests, removed when the file's tests are done.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function setup(user?: unknown, project?: unknown): { cwd: string; env: NodeJS.ProcessEnv } {
  const root = tempFolder('spine-config-');
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(cwd, '.spine'), { recursive: true });
  if (user !== undefined) writeFileSync(join(home, 'config.json'), JSON.stringify(user));
  if (project !== undefined)
    writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(project));
  return { cwd, env: { SPINE_CONFIG_HOME: home, HOME: root } };
}

describe('loadConfig', () => {
  it('merges defaults < user < project < env < flags field by field with provenance', () => {
    const { cwd, env } = setup(
      { model: 'deepseek/deepseek-reasoner', compaction: { threshold: 0.5 }, maxSteps: 7 },
      { compaction: { auto: false }, sandbox: 'read-only' },
    );
    env.SPINE_SANDBOX = 'danger-full-access';
    const { config, provenance } = loadConfig({ cwd, env, flags: { maxSteps: 3 } });
    expect(config.model).toBe('deepseek/deepseek-reasoner');
    // Field-level merge: the project file's compaction.auto does not drop the user's threshold.
    expect(config.compaction).toEqual({ auto: false, threshold: 0.5, background: false });
    expect(config.sandbox).toBe('danger-full-access');
    expect(config.maxSteps).toBe(3);
    expect(config.approval).toBe('ask');
    expect(provenance.get('compaction.threshold')?.layer).toBe('user');
    expect(provenance.get('compaction.auto')?.layer).toBe('project');
    expect(provenance.get('sandbox')).toEqual({
      layer: 'env',
      origin: 'environment variable SPINE_SANDBOX',
    });
    expect(provenance.get('maxSteps')?.layer).toBe('flag');
    expect(provenance.get('approval')?.layer).toBe('default');
  });

  it('applies a selected profile right above the file that defines it', () => {
    const { cwd, env } = setup(
      { profiles: { fast: { maxSteps: 2, compaction: { auto: false } } } },
      {
        profile: 'fast',
        approval: 'deny-all',
      },
    );
    const { config, provenance } = loadConfig({ cwd, env });
    expect(config.maxSteps).toBe(2);
    expect(config.compaction).toEqual({ auto: false, threshold: 0.8, background: false });
    expect(provenance.get('maxSteps')?.origin).toContain('(profile "fast")');
    expect(config.profile).toBe('fast');
  });

  it('names the file, the key and the expected shape of an invalid value', () => {
    const { cwd, env } = setup(undefined, { compaction: { threshold: 'high' } });
    expect(() => loadConfig({ cwd, env })).toThrow(InvalidConfigError);
    try {
      loadConfig({ cwd, env });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain(join(cwd, '.spine', 'config.json'));
      expect(message).toContain('"compaction.threshold"');
      expect(message).toContain('expected number');
    }
  });

  it('words a bound as a sentence and refuses a zero budget in a file', () => {
    const zero = setup(undefined, { maxCost: 0 });
    expect(() => loadConfig(zero)).toThrow(
      /key "maxCost": expected a number greater than 0\. Fix the value/,
    );
    const turn = setup({ maxTurnCost: 0 });
    expect(() => loadConfig(turn)).toThrow(/key "maxTurnCost": expected a number greater than 0/);
    const huge = setup(undefined, { maxTokens: 1e20 });
    expect(() => loadConfig(huge)).toThrow(
      /key "maxTokens": expected a whole number no larger than 9007199254740991\./,
    );
    const steps = setup({ maxSteps: 0 });
    expect(() => loadConfig(steps)).toThrow(/key "maxSteps": expected a number greater than 0\./);
    const cheap = setup(undefined, { maxCost: 0.000000001, maxTurnCost: 0.5 });
    expect(loadConfig(cheap).config.maxCost).toBe(1e-9);
  });

  it('refuses API keys in configuration and unknown keys', () => {
    const { cwd, env } = setup({ apiKey: 'sk-123' });
    expect(() => loadConfig({ cwd, env })).toThrow(/API keys are never stored in configuration/);
    const other = setup(undefined, { maxStep: 3 });
    expect(() => loadConfig(other)).toThrow(/key "maxStep".*not a known key/);
  });

  it('reports bad JSON, bad environment values and unknown profiles', () => {
    const { cwd, env } = setup();
    writeFileSync(join(cwd, '.spine', 'config.json'), '{ "model": ');
    expect(() => loadConfig({ cwd, env })).toThrow(/: the document is not valid JSON \(/);
    const option = setup(undefined, { sandbox: 'none' });
    expect(() => loadConfig(option)).toThrow(/key "sandbox": expected one of "read-only"\|/);
    const mcp = setup();
    writeFileSync(join(mcp.cwd, '.mcp.json'), '{ "mcpServers": ');
    expect(() => loadConfig(mcp)).toThrow(/\.mcp\.json.*valid JSON/);
    const second = setup();
    expect(() =>
      loadConfig({ ...second, env: { ...second.env, SPINE_MAX_STEPS: 'many' } }),
    ).toThrow(/environment variable SPINE_MAX_STEPS: key "maxSteps"/);
    expect(() => loadConfig({ ...second, flags: { profile: 'nope' } })).toThrow(
      /profile.*none defined/,
    );
  });

  it('prints every value with its layer', () => {
    const { cwd, env } = setup({ maxSteps: 9 });
    const text = formatEffectiveConfig(loadConfig({ cwd, env, flags: { approval: 'deny-all' } }));
    expect(text).toMatch(/maxSteps = 9 +\[user: .*config\.json\]/);
    expect(text).toMatch(/approval = "deny-all" +\[flag: --approval\]/);
    expect(text).toMatch(/hooks\.stop = \[\] +\[default: built-in\]/);
  });
});
