// The JSONL store when the file system refuses (QA defects D1 and D2): a session the process
// cannot see is never reported missing, and every refusal is a StoreUnavailableError naming the
// path and the operating system's code. Symbolic link loops and files in place of folders bite
// root too and are checked in this process; permission modes do not bite root, so those run in
// fs-refusal-runner.ts as uid 65534 (through setpriv) when the tests run as root, and in this
// process otherwise.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpineError } from '@spine/protocol';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../src/errors.js';
import { Session } from '../src/session.js';
import { createJsonlStore } from '../src/store-jsonl.js';
import { repoRoot } from './child.js';
import { checkRefusals, type Outcome, outcome, refusalScenarios } from './fs-refusal-runner.js';

const IS_ROOT = process.getuid?.() === 0;
const UNPRIVILEGED = 65534;
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

let base = '';
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'spine-fs-refusal-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function seed(dir: string, id: string): Promise<void> {
  const session = await Session.create({ store: createJsonlStore({ dir }), id });
  await session.close();
}

/** The StoreUnavailableError `call` rejects with. */
async function refusal(call: () => Promise<unknown>): Promise<StoreUnavailableError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StoreUnavailableError);
  return error as StoreUnavailableError;
}

describe('JSONL store on a file system that refuses, as any user', () => {
  it('reports a symbolic link loop in place of a session as STORE_UNAVAILABLE, not as missing', async () => {
    const dir = mkdtempSync(join(base, 'loop-'));
    symlinkSync('a.jsonl', join(dir, 'a.jsonl'));
    const store = createJsonlStore({ dir });
    const error = await refusal(() => store.exists('a'));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.systemCode).toBe('ELOOP');
    expect(error.path).toBe(join(dir, 'a.jsonl'));
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ELOOP');
    expect(error.message).toBe(
      `Cannot look for session a in ${dir}: stat ${join(dir, 'a.jsonl')} failed with ELOOP (too many symbolic links encountered); a symbolic link on the path loops; remove it or point it at a real file`,
    );
    expect((await refusal(() => Session.open({ store, id: 'a' }))).systemCode).toBe('ELOOP');
    expect((await refusal(() => Session.create({ store, id: 'a' }))).systemCode).toBe('ELOOP');
    expect(existsSync(join(dir, 'a.jsonl.lock'))).toBe(false);
  });

  it('refuses a folder in place of a session file and releases the lock it took', async () => {
    const dir = mkdtempSync(join(base, 'folder-'));
    mkdirSync(join(dir, 'a.jsonl'));
    const store = createJsonlStore({ dir });
    expect(await store.exists('a')).toBe(true);
    const first = await refusal(() => Session.open({ store, id: 'a' }));
    expect(first.systemCode).toBe('EISDIR');
    expect(first.message).toMatch(/^Cannot open session a in .*EISDIR.*; a folder sits where/);
    // The lock was released: a second open meets the same refusal, not SESSION_LOCKED.
    expect((await refusal(() => Session.open({ store, id: 'a' }))).systemCode).toBe('EISDIR');
    await expect(Session.create({ store, id: 'a' })).rejects.toMatchObject({
      code: 'SESSION_EXISTS',
    });
  });

  it('finds no session in a store folder that is a file, and refuses to create one there', async () => {
    const file = join(mkdtempSync(join(base, 'file-')), 'sessions');
    writeFileSync(file, 'not a folder');
    for (const dir of [file, join(file, 'inner')]) {
      const store = createJsonlStore({ dir });
      expect(await store.exists('a')).toBe(false);
      await expect(Session.open({ store, id: 'a' })).rejects.toMatchObject({
        code: 'SESSION_NOT_FOUND',
      });
      const error = await refusal(() => Session.create({ store, id: 'a' }));
      expect(error.systemCode).toBe(dir === file ? 'EEXIST' : 'ENOTDIR');
      expect(error.message).toContain('a file sits where a folder belongs');
    }
    const error = await refusal(() => createJsonlStore({ dir: file }).list());
    expect(error.systemCode).toBe('ENOTDIR');
  });

  it('keeps a good session openable beside the refused ones', async () => {
    const dir = mkdtempSync(join(base, 'mixed-'));
    await seed(dir, 'good');
    symlinkSync('bad.jsonl', join(dir, 'bad.jsonl'));
    const store = createJsonlStore({ dir });
    await refusal(() => store.exists('bad'));
    const session = await Session.open({ store, id: 'good' });
    expect(session.lastSeq).toBe(1);
    await session.close();
    expect((await store.list()).map((summary) => summary.id)).toEqual(['good']);
  });

  it('agrees on exists, open and create, with typed errors, whatever the folder holds', async () => {
    await checkRefusals(mkdtempSync(join(base, 'property-')), { modes: false, numRuns: 60 });
  });
});

/** Runs the runner as uid 65534 (the tests run as root) or in this process (they do not). */
async function asUnprivileged(): Promise<{
  uid: number;
  scenarios: Record<string, Outcome>;
  property: Outcome;
}> {
  const own = mkdtempSync(join(base, 'unprivileged-'));
  if (!IS_ROOT) {
    return {
      uid: process.getuid?.() ?? -1,
      scenarios: await refusalScenarios(mkdtempSync(join(own, 'scenarios-'))),
      property: await outcome(async () => {
        await checkRefusals(own, { modes: true, numRuns: 60 });
        return 'held';
      }),
    };
  }
  // One plain .mjs file (the runner and the session-log sources): the user needs only to read it.
  const bundle = join(own, 'runner.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('./fs-refusal-runner.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
    tsconfig: `${repoRoot}tsconfig.json`,
  });
  chmodSync(base, 0o755);
  chownSync(own, UNPRIVILEGED, UNPRIVILEGED);
  chmodSync(bundle, 0o644);
  const run = spawnSync(
    SETPRIV as string,
    [
      '--reuid',
      String(UNPRIVILEGED),
      '--regid',
      String(UNPRIVILEGED),
      '--clear-groups',
      '--',
      process.execPath,
      bundle,
      own,
    ],
    {
      cwd: own,
      env: { PATH: process.env.PATH, HOME: own, TMPDIR: own },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`the runner exited ${run.status}: ${run.stderr.slice(-2000)} ${last}`);
  }
}

/** The StoreUnavailableError an outcome holds, checked for the code, path and cause. */
function refused(result: Outcome | undefined, systemCode: string): { message: string } {
  expect(result && 'error' in result, JSON.stringify(result)).toBe(true);
  const error = (result as Extract<Outcome, { error: unknown }>).error;
  expect(error).toMatchObject({
    spine: true,
    name: 'StoreUnavailableError',
    code: 'STORE_UNAVAILABLE',
    systemCode,
    causeCode: systemCode,
  });
  expect(typeof error.path).toBe('string');
  expect(error.message).toContain(`${error.path} failed with ${systemCode}`);
  return error;
}

describe.skipIf(IS_ROOT && !SETPRIV)(
  'JSONL store on a file system that refuses, as an unprivileged user',
  () => {
    let report: Awaited<ReturnType<typeof asUnprivileged>>;
    beforeAll(async () => {
      report = await asUnprivileged();
    }, 120_000);

    it('runs as a user whom modes stop', () => {
      expect(report.uid).not.toBe(0);
    });

    it('says a folder it may not search is unavailable, never that its session is missing (D1)', () => {
      const { scenarios } = report;
      const exists = refused(scenarios['unsearchable exists'], 'EACCES');
      expect(exists.message).toMatch(/^Cannot look for session a in .*unsearchable: stat /);
      expect(exists.message).toMatch(
        /\(permission denied\); give this user read, write and search/,
      );
      refused(scenarios['unsearchable open'], 'EACCES');
      refused(scenarios['unsearchable create'], 'EACCES');
      refused(scenarios['unsearchable list'], 'EACCES');
      // Nothing was taken or written: with the mode given back, the session opens as it was.
      expect(scenarios['unsearchable afterwards']).toEqual({ value: 2 });
    });

    it('types the refusals of a folder it may not write, and still opens read-only there (D2)', () => {
      const { scenarios } = report;
      const open = refused(scenarios['read-only open'], 'EACCES');
      expect(open.message).toMatch(
        /^Cannot open session a in .*read-only for writing \(open it with \{ readOnly: true \}/,
      );
      expect(open.message).toContain('a.jsonl.lock failed with EACCES');
      expect(scenarios['read-only open readOnly']).toEqual({ value: 2 });
      const create = refused(scenarios['read-only create'], 'EACCES');
      expect(create.message).toMatch(
        /^Cannot create session b in .*read-only: open .*b\.jsonl\.lock/,
      );
      refused(scenarios['turned blob'], 'EACCES');
      refused(scenarios['turned snapshot'], 'EACCES');
    });

    it('types a session file it may not read and leaves no lock behind (D2)', () => {
      const { scenarios } = report;
      expect(scenarios['unreadable exists']).toEqual({ value: true });
      refused(scenarios['unreadable open'], 'EACCES');
      refused(scenarios['unreadable open again'], 'EACCES');
      expect(scenarios['unreadable lock left']).toEqual({ value: false });
    });

    it('agrees on exists, open and create under generated folder and file modes', () => {
      expect(report.property).toEqual({ value: 'held' });
    });
  },
);

it('exports StoreUnavailableError as a SpineError with its code', () => {
  const error = new StoreUnavailableError({ message: 'm', path: '/p', systemCode: 'EIO' });
  expect(SpineError.isInstance(error)).toBe(true);
  expect([error.code, error.path, error.systemCode]).toEqual(['STORE_UNAVAILABLE', '/p', 'EIO']);
});
