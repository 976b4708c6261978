import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidRuntimeOptionsError } from './errors.js';
import {
  createShellEnv,
  isCredentialName,
  type ShellEnvOptions,
  withoutShellStartup,
} from './shell-env.js';

const HOST = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/a',
  USER: 'a',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  LC_TIME: 'C',
  TERM: 'xterm',
  TZ: 'UTC',
  TMPDIR: '/tmp',
  SHELL: '/bin/bash',
  SHLVL: '2',
  EDITOR: 'vi',
  NODE_OPTIONS: '--max-old-space-size=100',
  NODE_ENV: 'test',
  MY_MODEL_KEY: 'canary-model',
  AWS_ACCESS_KEY_ID: 'canary-aws',
  AWS_SECRET_ACCESS_KEY: 'canary-aws2',
  OPENAI_KEY: 'canary-openai',
  GH_PAT: 'canary-gh',
  DATABASE_URL: 'postgres://u:canary@h/db',
  GITHUB_TOKEN: 'canary-token',
  SSH_AUTH_SOCK: '/run/ssh.sock',
  BASH_ENV: '/home/a/.evil',
  ENV: '/home/a/.evil',
  'BASH_FUNC_ls%%': '() { echo pwned; }',
};

describe('createShellEnv', () => {
  it('passes only the core variables by default', () => {
    expect(Object.keys(createShellEnv(HOST)).sort()).toEqual(
      ['HOME', 'LANG', 'LC_ALL', 'LC_TIME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'].sort(),
    );
  });

  it('inherit all drops credential-like names and shell startup variables', () => {
    const env = createShellEnv(HOST, { inherit: 'all' });
    expect(env.EDITOR).toBe('vi');
    expect(env.SHLVL).toBe('2');
    for (const name of [
      'MY_MODEL_KEY',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'OPENAI_KEY',
      'GH_PAT',
      'DATABASE_URL',
      'GITHUB_TOKEN',
      'SSH_AUTH_SOCK',
      'BASH_ENV',
      'ENV',
      'BASH_FUNC_ls%%',
    ])
      expect(env[name], name).toBeUndefined();
  });

  it('applies include, exclude and set, and never passes neverPass names whatever they say', () => {
    const env = createShellEnv(HOST, {
      inherit: 'none',
      include: ['NODE_*', 'MY_MODEL_KEY', 'GH_PAT'],
      exclude: ['NODE_ENV'],
      set: { CI: '1', MY_MODEL_KEY: 'x', BASH_ENV: '/x' },
      neverPass: ['MY_MODEL_KEY'],
    });
    expect(env).toEqual({ NODE_OPTIONS: '--max-old-space-size=100', GH_PAT: 'canary-gh', CI: '1' });
  });

  it('refuses bad names and values with a typed error', () => {
    const bad: ShellEnvOptions[] = [
      { include: ['A B'] },
      { exclude: ['*'] },
      { set: { 'A-B': 'x' } },
      { set: { A: 'x\0y' } },
      { inherit: 'some' as 'all' },
    ];
    for (const options of bad) {
      expect(() => createShellEnv(HOST, options), JSON.stringify(options)).toThrow(
        InvalidRuntimeOptionsError,
      );
    }
  });

  it('never lets a neverPass or startup name through, for any host environment and options', () => {
    const name = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/);
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.string()),
        fc.constantFrom('core', 'all', 'none') as fc.Arbitrary<'core' | 'all' | 'none'>,
        fc.array(name, { maxLength: 4 }),
        name,
        (host, inherit, include, secret) => {
          const env = createShellEnv(
            { ...host, [secret]: 'canary', BASH_ENV: 'x' },
            { inherit, include: [...include, secret], set: { [secret]: 'y' }, neverPass: [secret] },
          );
          expect(env[secret]).toBeUndefined();
          expect(env.BASH_ENV).toBeUndefined();
          if (inherit !== 'all') {
            for (const key of Object.keys(env))
              expect(key in host || include.includes(key)).toBe(true);
          }
        },
      ),
    );
  });

  it('recognises credential-like names and leaves ordinary ones alone', () => {
    for (const name of [
      'ANTHROPIC_API_KEY',
      'SPINE_E2E_KEY',
      'NPM_TOKEN',
      'PGPASSWORD',
      'REDIS_URL',
    ])
      expect(isCredentialName(name), name).toBe(true);
    for (const name of ['PATH', 'EDITOR', 'NODE_ENV', 'LANG', 'KEYBOARD_LAYOUT', 'PWD'])
      expect(isCredentialName(name), name).toBe(false);
    expect(withoutShellStartup({ A: '1', BASH_ENV: 'x', ENV: 'y' })).toEqual({ A: '1' });
  });
});
