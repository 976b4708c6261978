import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  explainMissingPart,
  installCommand,
  isInstalled,
  OPTIONAL_PARTS,
  OptionalPartMissingError,
} from '@spine/harness';
import { SpineError } from '@spine/protocol';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from '../exit-codes.js';
import { exitCodeOf, reportError } from '../report-error.js';

// A folder outside the repository, where `@spine/mcp` does not resolve: the errors below are the
// ones Node really throws when the CLI is installed without the optional part.
const outside = mkdtempSync(join(tmpdir(), 'spine-optional-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

async function importFailure(from: 'esm' | 'cjs'): Promise<unknown> {
  if (from === 'cjs') {
    try {
      createRequire(join(outside, 'x.cjs'))('@spine/mcp');
    } catch (error) {
      return error;
    }
    throw new Error('@spine/mcp resolved from outside the repository');
  }
  // vitest resolves imports itself, so the ES module import runs in a plain node process; its
  // error's code and message come back verbatim.
  const file = join(outside, 'load.mjs');
  writeFileSync(
    file,
    "await import('@spine/mcp').then(() => process.exit(3), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));\n",
  );
  const out = execFileSync(process.execPath, [file], { cwd: outside, encoding: 'utf8' });
  const { code, message } = JSON.parse(out) as { code: string; message: string };
  return Object.assign(new Error(message), { code });
}

describe('optional parts', () => {
  it('turns the missing @spine/mcp into an error naming the install command (exit 2)', async () => {
    for (const from of ['esm', 'cjs'] as const) {
      const raw = await importFailure(from);
      const explained = explainMissingPart(raw);
      expect(explained).toBeInstanceOf(OptionalPartMissingError);
      const error = explained as OptionalPartMissingError;
      expect(error.packageName).toBe('@spine/mcp');
      expect(error.message).toContain('`npm i @spine/mcp@0.x`');
      expect(error.message).toContain('MCP servers');
      expect(error.cause).toBe(raw);
      expect(exitCodeOf(raw)).toBe(EXIT_CODES.usage);
      let printed = '';
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        printed += String(chunk);
        return true;
      });
      try {
        reportError(raw);
      } finally {
        spy.mockRestore();
      }
      expect(printed).toMatch(/^spine: @spine\/mcp is not installed; .*\[INVALID_CONFIG\]\n$/s);
      expect(printed).not.toMatch(/bug/);
    }
  });

  it('leaves other errors alone, including another missing package', async () => {
    let other: unknown;
    try {
      createRequire(join(outside, 'x.cjs'))('left-pad-not-installed');
    } catch (error) {
      other = error;
    }
    expect((other as NodeJS.ErrnoException).code).toBe('MODULE_NOT_FOUND');
    expect(explainMissingPart(other)).toBe(other);
    const spine = new SpineError({ code: 'ABORTED', message: 'stopped' });
    expect(explainMissingPart(spine)).toBe(spine);
    expect(explainMissingPart('text')).toBe('text');
  });

  it('knows whether a part is installed from the CLI location', () => {
    // In the repository @spine/mcp is a dev dependency of the CLI; an unknown package is not there.
    expect(isInstalled(OPTIONAL_PARTS.mcp)).toBe(true);
    expect(
      isInstalled({ packageName: '@spine/not-a-package', version: '1.0.0', neededFor: 'nothing' }),
    ).toBe(false);
    expect(installCommand(OPTIONAL_PARTS.mcp)).toBe('npm i @spine/mcp@0.x');
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    );
    for (const part of Object.values(OPTIONAL_PARTS)) {
      expect(manifest.peerDependencies[part.packageName]).toBe(part.version);
      expect(manifest.peerDependenciesMeta[part.packageName]).toEqual({ optional: true });
      expect(manifest.dependencies[part.packageName]).toBeUndefined();
    }
  });

  it('turns the missing @spine/acp (spine acp) into an error naming the install command', () => {
    let raw: unknown;
    try {
      createRequire(join(outside, 'x.cjs'))('@spine/acp');
    } catch (error) {
      raw = error;
    }
    const explained = explainMissingPart(raw);
    expect(explained).toBeInstanceOf(OptionalPartMissingError);
    expect((explained as OptionalPartMissingError).message).toContain('`npm i @spine/acp@0.x`');
    expect((explained as OptionalPartMissingError).message).toContain('spine acp');
    expect(exitCodeOf(raw)).toBe(EXIT_CODES.usage);
  });
});
