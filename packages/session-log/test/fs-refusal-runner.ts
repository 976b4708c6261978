// The JSONL store against a file system that refuses. `checkRefusals` is a fast-check property:
// in a store folder put in a generated state (missing, a file, a symbolic link loop; with `modes`,
// also a folder this user may not search, list or write, or a session file it may not read or
// write) and for a generated id, `exists`, `open` and `create` must agree, and every failure must
// be a SpineError saying what the file system refused. `refusalScenarios` runs the cases of QA
// defects D1 and D2 one by one. Modes mean nothing to root, so fs-refusal.test.ts runs this file
// as an unprivileged user (argv[2]: the base folder; prints one JSON line of outcomes).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpineError } from '@spine/protocol';
import fc from 'fast-check';
import { SAFE_ID } from '../src/internal/jsonl-files.js';
import { Session } from '../src/session.js';
import { createJsonlStore } from '../src/store-jsonl.js';

/** What one call did: its value, or the error it threw, reduced to what the tests look at. */
export type Outcome =
  | { value: unknown }
  | {
      error: {
        spine: boolean;
        name: string;
        code: unknown;
        message: string;
        systemCode?: unknown;
        path?: unknown;
        causeCode?: unknown;
      };
    };

/** Runs `call` and describes what it did. */
export async function outcome(call: () => unknown): Promise<Outcome> {
  try {
    return { value: await call() };
  } catch (caught) {
    const error = caught as Error & Record<string, unknown>;
    return {
      error: {
        spine: SpineError.isInstance(error),
        name: error?.name,
        code: error?.code,
        message: String(error?.message ?? error),
        systemCode: error?.systemCode,
        path: error?.path,
        causeCode: (error?.cause as { code?: unknown } | undefined)?.code,
      },
    };
  }
}

const codeOf = (result: Outcome): unknown => ('error' in result ? result.error.code : undefined);

/** The state a generated case puts the store folder and the session's file in. */
const FOLDER_STATES = ['normal', 'missing', 'file', 'under-a-file', 'loop'] as const;
const FILE_STATES = ['absent', 'session', 'loop', 'dangling', 'directory', 'empty'] as const;
const FOLDER_MODES = [0o700, 0o500, 0o300, 0o100, 0o000] as const;
const FILE_MODES = [0o600, 0o400, 0o200, 0o000] as const;

interface RefusalCase {
  folder: (typeof FOLDER_STATES)[number];
  file: (typeof FILE_STATES)[number];
  folderMode: number;
  fileMode: number;
  id: string;
}

/** Builds the case's store folder under `base`; returns it. */
async function build(base: string, state: RefusalCase): Promise<string> {
  const root = mkdtempSync(join(base, 'case-'));
  if (state.folder === 'missing') return join(root, 'sessions');
  if (state.folder === 'file' || state.folder === 'under-a-file') {
    writeFileSync(join(root, 'sessions'), 'not a folder');
    return state.folder === 'file' ? join(root, 'sessions') : join(root, 'sessions', 'inner');
  }
  if (state.folder === 'loop') {
    symlinkSync('sessions', join(root, 'sessions'));
    return join(root, 'sessions');
  }
  const dir = join(root, 'sessions');
  mkdirSync(dir);
  const path = join(dir, `${state.id}.jsonl`);
  const safe = SAFE_ID.test(state.id);
  if (safe && state.file === 'session') {
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store, id: state.id });
    session.append('user/message', { content: 'kept', source: 'user' });
    await session.close();
  } else if (safe && state.file === 'loop') symlinkSync(`${state.id}.jsonl`, path);
  else if (safe && state.file === 'dangling') symlinkSync('gone.jsonl', path);
  else if (safe && state.file === 'directory') mkdirSync(path);
  else if (safe && state.file === 'empty') writeFileSync(path, '');
  if (existsSync(path) && state.file !== 'directory') chmodSync(path, state.fileMode);
  chmodSync(dir, state.folderMode);
  return dir;
}

/** Checks one case; throws an Error saying what disagreed. */
async function checkCase(base: string, state: RefusalCase): Promise<void> {
  const dir = await build(base, state);
  const store = createJsonlStore({ dir, fsync: 'never' });
  const exists = await outcome(() => store.exists(state.id));
  const open = await outcome(async () => {
    await (await Session.open({ store, id: state.id, readOnly: true })).close();
  });
  const write = await outcome(async () => {
    await (await Session.open({ store, id: state.id })).close();
  });
  const create = await outcome(async () => {
    await (await Session.create({ store, id: state.id })).close();
  });
  const list = await outcome(() => store.list());
  const report = JSON.stringify({ state, dir, exists, open, write, create, list });
  const fail = (what: string) => {
    throw new Error(`${what}: ${report}`);
  };
  for (const result of [exists, open, write, create, list]) {
    if (!('error' in result)) continue;
    if (!result.error.spine) fail('a raw error escaped');
    if (result.error.code === 'STORE_UNAVAILABLE') {
      const { systemCode, causeCode, message } = result.error;
      if (typeof systemCode !== 'string' || systemCode !== causeCode) fail('no system code');
      if (!message.includes(String(systemCode))) fail('the message does not name the code');
    }
  }
  // A session is reported missing only when it is: `exists` and `open` agree.
  if ('value' in exists && exists.value === false) {
    if (codeOf(open) !== 'SESSION_NOT_FOUND') fail('exists() is false but open did not say so');
    // A dangling link occupies the name: create refuses it as existing. An unsafe id is refused.
    const refused = ['STORE_UNAVAILABLE'];
    if (state.file === 'dangling') refused.push('SESSION_EXISTS');
    if (!SAFE_ID.test(state.id)) refused.push('INVALID_EVENT');
    if ('error' in create && !refused.includes(String(codeOf(create)))) fail('create failed');
  } else {
    if (codeOf(open) === 'SESSION_NOT_FOUND') fail('open said not found, exists() did not');
    if (codeOf(write) === 'SESSION_NOT_FOUND') fail('open said not found, exists() did not');
    if ('value' in create) fail('created over a session exists() did not deny');
  }
  if ('error' in exists && codeOf(exists) !== 'STORE_UNAVAILABLE') fail('exists() threw');
  // A refused open takes nothing: no lock file stays behind.
  if (existsSync(join(dir, `${state.id}.jsonl.lock`))) fail('a lock file stayed');
  // A readable session that exists opens whole.
  if (state.file === 'session' && 'value' in exists && exists.value && 'error' in open) {
    const readable = state.folderMode & 0o100 && state.fileMode & 0o400;
    if (readable) fail('a readable session did not open');
  }
  try {
    chmodSync(dir, 0o700);
  } catch {
    // Not a folder of its own (missing, a file, a loop): nothing to give back.
  }
}

/**
 * The property: for generated store states and ids, the store's answers agree and every error is
 * typed. `modes` adds folder and file modes (only meaningful for a user other than root).
 */
export async function checkRefusals(
  base: string,
  options: { modes: boolean; numRuns: number },
): Promise<void> {
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'session-1', 'x.y_z') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        folder: fc.constantFrom(...FOLDER_STATES),
        file: fc.constantFrom(...FILE_STATES),
        folderMode: options.modes ? fc.constantFrom(...FOLDER_MODES) : fc.constant(0o700),
        fileMode: options.modes ? fc.constantFrom(...FILE_MODES) : fc.constant(0o600),
        id,
      }),
      (state) => checkCase(base, state),
    ),
    { numRuns: options.numRuns },
  );
}

/** The defects' cases one by one, each call's outcome by name. */
export async function refusalScenarios(base: string): Promise<Record<string, Outcome>> {
  const results: Record<string, Outcome> = {};
  const seed = async (dir: string, id: string) => {
    mkdirSync(dir, { recursive: true });
    const session = await Session.create({ store: createJsonlStore({ dir, fsync: 'never' }), id });
    session.append('user/message', { content: 'kept', source: 'user' });
    await session.close();
  };

  // D1: a folder this user may not search.
  const hidden = join(base, 'unsearchable');
  await seed(hidden, 'a');
  chmodSync(hidden, 0o000);
  const store = createJsonlStore({ dir: hidden });
  results['unsearchable exists'] = await outcome(() => store.exists('a'));
  results['unsearchable open'] = await outcome(() => Session.open({ store, id: 'a' }));
  results['unsearchable create'] = await outcome(() => Session.create({ store, id: 'a' }));
  results['unsearchable list'] = await outcome(() => store.list());
  chmodSync(hidden, 0o700);
  results['unsearchable afterwards'] = await outcome(async () => {
    const session = await Session.open({ store, id: 'a' });
    await session.close();
    return session.lastSeq;
  });

  // D2: a folder this user may read but not write.
  const readOnly = join(base, 'read-only');
  await seed(readOnly, 'a');
  chmodSync(readOnly, 0o500);
  const fixed = createJsonlStore({ dir: readOnly });
  results['read-only open'] = await outcome(() => Session.open({ store: fixed, id: 'a' }));
  results['read-only open readOnly'] = await outcome(async () => {
    const session = await Session.open({ store: fixed, id: 'a', readOnly: true });
    await session.close();
    return session.lastSeq;
  });
  results['read-only create'] = await outcome(() => Session.create({ store: fixed, id: 'b' }));
  chmodSync(readOnly, 0o700);

  // D2: the folder turns read-only while a session is open: blobs and snapshots are refused.
  const turning = join(base, 'turning');
  await seed(turning, 'a');
  const turningStore = createJsonlStore({ dir: turning });
  const opened = await turningStore.open('a');
  chmodSync(turning, 0o500);
  results['turned blob'] = await outcome(() =>
    opened.blobs?.put('0'.repeat(64), new Uint8Array(1)),
  );
  results['turned snapshot'] = await outcome(() =>
    opened.writeSnapshot({ seq: opened.lastSeq, data: '{}' }),
  );
  chmodSync(turning, 0o700);
  await opened.close();

  // D2: a session file this user may not read.
  const unreadable = join(base, 'unreadable');
  await seed(unreadable, 'a');
  chmodSync(join(unreadable, 'a.jsonl'), 0o000);
  const closed = createJsonlStore({ dir: unreadable });
  results['unreadable exists'] = await outcome(() => closed.exists('a'));
  results['unreadable open'] = await outcome(() => Session.open({ store: closed, id: 'a' }));
  results['unreadable open again'] = await outcome(() => Session.open({ store: closed, id: 'a' }));
  results['unreadable lock left'] = { value: existsSync(join(unreadable, 'a.jsonl.lock')) };
  return results;
}

if (process.argv[2] && import.meta.url === `file://${process.argv[1]}`) {
  const base = process.argv[2];
  const scenarios = await refusalScenarios(mkdtempSync(join(base, 'scenarios-')));
  const property = await outcome(async () => {
    await checkRefusals(base, { modes: true, numRuns: 60 });
    return 'held';
  });
  console.log(JSON.stringify({ uid: process.getuid?.(), scenarios, property }));
}
