// The git CLI, run against the shadow object store: its own GIT_DIR and index beside the session,
// the workspace as the work tree. Nothing of the user's environment or configuration that could
// change what is stored (GIT_* variables, global and system config, attributes) reaches it.

import { execFile } from 'node:child_process';

/** A git invocation's output; `stdout` is raw bytes (paths may not be UTF-8). */
export interface GitOutput {
  stdout: Buffer;
}

/** Where the shadow store lives and which workspace it snapshots. */
export interface GitPlace {
  gitPath: string;
  gitDir: string;
  workTree: string;
  /** The index file (one per session, so concurrent sessions never share an index lock). */
  indexFile?: string;
  /** The exclude file (core.excludesFile) holding the size cap's patterns. */
  excludesFile?: string;
}

// Settings passed on every call so that a user's ~/.gitconfig cannot alter content or paths.
const FIXED_CONFIG = [
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.safecrlf=false',
  '-c',
  'core.symlinks=true',
  '-c',
  'core.filemode=true',
  '-c',
  'core.quotepath=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'gc.auto=0',
  // Speed, not content: a split index makes each write of the 10,000-entry index a small file
  // (only the entries changed since the shared part was written); version 4 compresses paths.
  '-c',
  'core.splitIndex=true',
  '-c',
  'index.version=4',
  '-c',
  'maintenance.auto=false',
];

// A snapshot commit's identity and date are fixed: the same content gives the same id.
const COMMIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'spine',
  GIT_AUTHOR_EMAIL: 'checkpoint@example.invalid',
  GIT_AUTHOR_DATE: '@0 +0000',
  GIT_COMMITTER_NAME: 'spine',
  GIT_COMMITTER_EMAIL: 'checkpoint@example.invalid',
  GIT_COMMITTER_DATE: '@0 +0000',
};

function environment(place: GitPlace): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  env.GIT_DIR = place.gitDir;
  env.GIT_WORK_TREE = place.workTree;
  if (place.indexFile) env.GIT_INDEX_FILE = place.indexFile;
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = '/dev/null';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  env.LC_ALL = 'C';
  return { ...env, ...COMMIT_IDENTITY };
}

/** The error of a git call that failed, with its arguments and stderr. */
export class GitCallError extends Error {
  override readonly name = 'GitCallError';
  /** Exit code (or null when killed). */
  readonly exitCode: number | null;
  /** What git wrote to stderr. */
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number | null, stderr: string) {
    // git's own advice for a held lock ("remove the file manually") would break the process
    // holding it: say to wait instead.
    const detail = /\.lock'?: File exists/.test(stderr)
      ? 'another Spine process is recording a checkpoint of this session right now; wait for it to finish, then try again'
      : stderr.trim().slice(0, 500);
    super(`git ${args.join(' ')} failed (exit ${exitCode}): ${detail}`);
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Runs git with `args` in the workspace; `input` goes to stdin. Rejects with {@link GitCallError}. */
export function runGit(
  place: GitPlace,
  args: readonly string[],
  options: { input?: Buffer | string; signal?: AbortSignal } = {},
): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      place.gitPath,
      [
        ...FIXED_CONFIG,
        ...(place.excludesFile ? ['-c', `core.excludesFile=${place.excludesFile}`] : []),
        ...args,
      ],
      {
        cwd: place.workTree,
        env: environment(place),
        encoding: 'buffer',
        maxBuffer: 1024 * 1024 * 1024,
        signal: options.signal,
      },
      (error, stdout, stderr) => {
        if (error) {
          const code = typeof error.code === 'number' ? error.code : null;
          reject(
            new GitCallError(args, code, Buffer.from(stderr).toString('utf8') || error.message),
          );
          return;
        }
        resolve({ stdout: Buffer.from(stdout) });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

export { splitNulPaths as splitNul } from './path-bytes.js';
