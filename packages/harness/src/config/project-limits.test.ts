import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidConfigError } from '../errors.js';
import { loadConfig } from './load.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function setup(user: unknown, project: unknown): { cwd: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), 'spine-limits-'));
  made.push(root);
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(cwd, '.spine'), { recursive: true });
  if (user !== undefined) writeFileSync(join(home, 'config.json'), JSON.stringify(user));
  writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(project));
  return { cwd, env: { SPINE_CONFIG_HOME: home, HOME: root } };
}

/** Every value a repository might use to widen the boundary or redirect a credential. */
const WIDENING: [string, Record<string, unknown>][] = [
  ['sandbox', { sandbox: 'danger-full-access' }],
  ['approval', { approval: 'never-ask' }],
  ['baseUrl', { baseUrl: 'https://collector.example.com/v1' }],
  ['apiKeyEnv', { apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' }],
  ['store.url', { store: { url: 'postgres://spine@db.example.com/spine' } }],
  ['protectedPaths', { protectedPaths: false }],
  ['protectedPaths', { protectedPaths: [] }],
  ['shell.allowCredentials', { shell: { allowCredentials: true } }],
  ['shell.network', { shell: { network: { domains: ['example.com'] } } }],
  ['shell.unixSockets', { shell: { unixSockets: 'all' } }],
];

/** Values that only narrow the session, which a project file keeps setting. */
const NARROWING: Record<string, unknown>[] = [
  { sandbox: 'read-only' },
  { sandbox: 'workspace-write' },
  { approval: 'ask' },
  { approval: 'auto-edit' },
  { approval: 'deny-all' },
  { shell: { network: 'off' } },
  { shell: { unixSockets: 'none' } },
  { maxSteps: 4 },
];

describe('a project file never widens the boundary', () => {
  it.each(WIDENING)('refuses %s, naming the file, the key and the reason', (key, project) => {
    const { cwd, env } = setup(undefined, project);
    let error: unknown;
    try {
      loadConfig({ cwd, env });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    const config = error as InvalidConfigError;
    expect(config.key).toBe(key);
    expect(config.source).toContain(join(cwd, '.spine', 'config.json'));
    expect(config.message).toMatch(
      /accepted only in the user configuration.*never in a project file/,
    );
  });

  it('refuses the same values inside a project profile, even when it is not selected', () => {
    for (const [key, project] of WIDENING) {
      const { cwd, env } = setup(undefined, { profiles: { wide: project } });
      expect(() => loadConfig({ cwd, env })).toThrow(`key "profiles.wide.${key}"`);
    }
  });

  it('accepts every widening value from the person: user file, environment and flags', () => {
    for (const [, value] of WIDENING) {
      const { cwd, env } = setup(value, {});
      expect(() => loadConfig({ cwd, env })).not.toThrow();
    }
    const { cwd, env } = setup(undefined, { sandbox: 'read-only' });
    const flagged = loadConfig({ cwd, env, flags: { sandbox: 'danger-full-access' } });
    expect(flagged.config.sandbox).toBe('danger-full-access');
    const fromEnv = loadConfig({ cwd, env: { ...env, SPINE_APPROVAL: 'never-ask' } });
    expect(fromEnv.config.approval).toBe('never-ask');
  });

  it('keeps accepting values that only narrow the session, alone and combined', () => {
    fc.assert(
      fc.property(fc.subarray(NARROWING, { minLength: 1 }), (picked) => {
        const project: Record<string, unknown> = {};
        for (const entry of picked)
          for (const [key, value] of Object.entries(entry))
            project[key] =
              typeof value === 'object' && value !== null
                ? { ...(project[key] as object | undefined), ...value }
                : value;
        const { cwd, env } = setup(undefined, project);
        expect(() => loadConfig({ cwd, env })).not.toThrow();
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a widening value hidden among narrowing ones', () => {
    fc.assert(
      fc.property(
        fc.subarray(NARROWING.filter((entry) => !('shell' in entry))),
        fc.constantFrom(...WIDENING),
        (narrow, [key, wide]) => {
          const project: Record<string, unknown> = Object.assign({}, ...narrow, wide);
          const { cwd, env } = setup(undefined, project);
          expect(() => loadConfig({ cwd, env })).toThrow(`key "${key}"`);
        },
      ),
      { numRuns: 40 },
    );
  });
});
