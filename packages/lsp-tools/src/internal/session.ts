import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LanguageServerConfig, LspCoverage } from '../types.js';
import type { LspClient } from './client.js';
import { DocumentSync, type SyncTarget } from './documents.js';
import { displayPath, findWorkspaceFile } from './paths.js';
import { discoverProjects, type WorkspaceProjects } from './projects.js';
import { waitForAnalysis } from './readiness.js';
import { forwardsTsserver, tsserverRequest } from './tsserver.js';
import { type FileChange, globToRegExp, WorkspaceWatcher } from './watcher.js';

/** What a workspace-wide answer covered, for the note under a result. */
export type Coverage = LspCoverage;

/** A started server with its document view. */
export interface ServerSession {
  client: LspClient;
  documents: DocumentSync;
  /** Opens/re-syncs `path` (absolute) and returns its URI. */
  sync(path: string): Promise<string>;
  /**
   * Before a workspace-wide query: syncs changed files, opens one file of every project (and,
   * for TypeScript, gives the files outside every project to the server), then waits for the
   * server's analysis within the bounded time. Says what was covered.
   */
  ensureProject(signal?: AbortSignal): Promise<Coverage>;
  /**
   * Before a query inside one file: when the file belongs to no project, the files outside
   * every project are given to the server first, so the file is compiled with the workspace's
   * options rather than as a loose script. Cheaper than {@link ServerSession.ensureProject}.
   */
  prepareFile(path: string): Promise<void>;
  /** Stops the session's file watcher. */
  close(): void;
}

/** What a session needs besides its client. */
export interface SessionOptions {
  cwd: string;
  config: LanguageServerConfig;
  /** Files changed in this session (absolute paths). */
  changedFiles: () => readonly string[];
  onChangedOnDisk: (path: string) => void;
  /** Upper bound for waiting on the server's initial analysis (ms). */
  analysisTimeoutMs: number;
}

/** The project marker files of a server: its own list, or what its languages imply. */
function projectFilesOf(config: LanguageServerConfig): string[] {
  if (config.projectFiles) return config.projectFiles;
  const extensions = Object.keys(config.languages);
  if (extensions.includes('.ts') || extensions.includes('.js'))
    return ['tsconfig.json', 'jsconfig.json'];
  if (extensions.includes('.py')) return ['pyproject.toml', 'pyrightconfig.json', 'setup.py'];
  return [];
}

const LOOSE_FILE_LIMIT = 5000;

/** Wraps a started client in a session: document sync, project preparation, file watching. */
export function createSession(client: LspClient, options: SessionOptions): ServerSession {
  const { config, cwd } = options;
  const documents = new DocumentSync(client, options.onChangedOnDisk);
  const languageOf = (path: string): string =>
    config.languages[extname(path).toLowerCase()] ?? config.id;
  // Files changed this session are opened too: the server then sees the new content even
  // where its own file watching is slow, and re-checks the files that depend on them.
  const changedTargets = (): SyncTarget[] =>
    options
      .changedFiles()
      .filter((path) => extname(path).toLowerCase() in config.languages)
      .map((path) => ({ path, languageId: languageOf(path), changed: true }));
  let projects: Promise<WorkspaceProjects> | undefined;
  let analysed = false;
  let looseGiven = 0;
  // True when tsserver was still loading the files outside projects at the analysis bound.
  let looseLate = false;
  let watcher: WorkspaceWatcher | undefined;

  const send = (changes: FileChange[]): void => {
    const patterns = client.watchedPatterns.map(globToRegExp);
    const wanted = changes.filter((change) => {
      const rel = displayPath(cwd, change.path);
      return patterns.some((pattern) => pattern.test(rel) || pattern.test(change.path));
    });
    if (wanted.length > 0) {
      documents.noteExternalChange();
      client.notify('workspace/didChangeWatchedFiles', {
        changes: wanted.map((change) => ({
          uri: pathToFileURL(change.path).href,
          type: change.type,
        })),
      });
    }
    // Open documents whose disk content changed are sent again, so dependent diagnostics follow.
    void documents.sync(changedTargets()).catch(() => undefined);
  };
  client.onWatchRegistration(() => {
    if (watcher) return;
    watcher = new WorkspaceWatcher(cwd, send);
    void watcher.start();
  });

  let looseOpened: Promise<void> | undefined;
  const discover = (): Promise<WorkspaceProjects> => {
    projects ??= discoverProjects(cwd, projectFilesOf(config), Object.keys(config.languages));
    return projects;
  };
  let projectsOpened: Promise<void> | undefined;
  /** Opens one file of every project, once; tsserver then loads each configured project. */
  const openProjects = (found: WorkspaceProjects): Promise<void> => {
    projectsOpened ??= documents.sync(
      found.representatives.map((path) => ({ path, languageId: languageOf(path) })),
    );
    return projectsOpened;
  };
  // The configured projects are opened first: a file that an external project already contains
  // is not looked up in its tsconfig again, so that project would never be loaded.
  const giveLooseFiles = async (found: WorkspaceProjects): Promise<void> => {
    await openProjects(found);
    looseOpened ??= openLooseFiles(found);
    return looseOpened;
  };
  const openLooseFiles = async (found: WorkspaceProjects): Promise<void> => {
    if (found.loose.length === 0 || !forwardsTsserver(client)) return;
    const rootFiles = found.loose.slice(0, LOOSE_FILE_LIMIT).map((fileName) => ({ fileName }));
    // One external project holds every file that no tsconfig includes, with the root config's
    // options (its `paths` lead package imports to source rather than to build output).
    // tsserver loads the whole program before it answers, so this gets the analysis bound; past
    // it the loading goes on (later requests queue behind it) and the answer is marked partial.
    looseGiven = rootFiles.length;
    try {
      await tsserverRequest(
        client,
        'openExternalProject',
        {
          projectFileName: `${cwd}/.spine-files-outside-projects`,
          rootFiles,
          options: found.looseOptions ?? { allowJs: true, allowNonTsExtensions: true },
        },
        undefined,
        options.analysisTimeoutMs,
      );
    } catch (error) {
      if (!client.alive) throw error;
      looseLate = true;
    }
  };

  return {
    client,
    documents,
    sync: async (path) => {
      await documents.sync([...changedTargets(), { path, languageId: languageOf(path) }]);
      return DocumentSync.uriOf(path);
    },
    prepareFile: async (path) => {
      const found = await discover();
      if (found.loose.includes(path)) await giveLooseFiles(found);
    },
    ensureProject: async (signal) => {
      const found = await discover();
      await giveLooseFiles(found);
      const targets = changedTargets();
      if (documents.size === 0 && targets.length === 0) {
        const seed = await findWorkspaceFile(cwd, Object.keys(config.languages));
        if (seed) targets.push({ path: seed, languageId: languageOf(seed) });
      }
      await documents.sync(targets);
      const ready = await waitForAnalysis(client, !analysed, {
        timeoutMs: options.analysisTimeoutMs,
        quietMs: 300,
        firstReportMs: Math.min(10_000, options.analysisTimeoutMs),
        ...(signal ? { signal } : {}),
      });
      if (ready) analysed = true;
      if (looseLate) {
        // tsserver answers in order: once any request returns, the loading has finished.
        await tsserverRequest(client, 'status', {}, signal, options.analysisTimeoutMs).then(
          () => {
            looseLate = false;
          },
          () => undefined,
        );
      }
      return {
        serverId: config.id,
        projects: found.configs.map((path) => displayPath(cwd, path)),
        looseFiles: looseGiven,
        partial: !ready || looseLate,
        truncated: found.truncated || found.loose.length > looseGiven,
      };
    },
    close: () => watcher?.close(),
  };
}
