import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from './paths.js';

/** The projects of one language in a workspace, as found on disk. */
export interface WorkspaceProjects {
  /** Project configuration files (absolute), e.g. every `tsconfig.json`. */
  configs: string[];
  /** One source file per project, opened so the server loads that project. */
  representatives: string[];
  /** Source files that no project includes (tests, benchmarks, examples, docs …). */
  loose: string[];
  /** Compiler options for the loose files (tsserver form), from the workspace's root config. */
  looseOptions?: Record<string, unknown>;
  /** Source files seen in the walk. */
  sourceFiles: number;
  /** True when the walk stopped at its file limit, so some files were not seen. */
  truncated: boolean;
}

const SKIPPED = new Set(['node_modules', 'dist', 'build', 'out', 'target', 'vendor', 'coverage']);
const TS_CONFIGS = new Set(['tsconfig.json', 'jsconfig.json']);
const WALK_LIMIT = 50_000;

/** Walks the workspace for project files and source files, skipping build and dependency folders. */
async function walk(
  root: string,
  markers: ReadonlySet<string>,
  extensions: ReadonlySet<string>,
): Promise<{ markers: string[]; sources: string[]; truncated: boolean }> {
  const found = { markers: [] as string[], sources: [] as string[], truncated: false };
  const queue = [root];
  let seen = 0;
  while (queue.length > 0) {
    const directory = queue.shift()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      seen += 1;
      if (seen > WALK_LIMIT) {
        found.truncated = true;
        return found;
      }
      if (entry.name.startsWith('.')) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) queue.push(path);
      } else if (entry.isFile()) {
        if (markers.has(entry.name)) found.markers.push(path);
        const extension = extname(entry.name).toLowerCase();
        if (extensions.has(extension) && !/\.d\.[cm]?ts$/.test(entry.name))
          found.sources.push(path);
      }
    }
  }
  return found;
}

// Options that only matter for emitting or for tsc -b; an editor view of loose files needs none.
const EMIT_OPTIONS = [
  'composite',
  'declaration',
  'declarationMap',
  'incremental',
  'tsBuildInfoFile',
  'outDir',
  'rootDir',
  'configFilePath',
  'pathsBasePath',
  'noEmit',
  'emitDeclarationOnly',
  'sourceMap',
];

/** The root config's compiler options in a form tsserver accepts for an external project. */
function looseOptionsOf(
  options: Record<string, unknown>,
  configPath: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...options };
  const base =
    typeof options.pathsBasePath === 'string' ? options.pathsBasePath : dirname(configPath);
  for (const key of EMIT_OPTIONS) delete out[key];
  const paths = options.paths as Record<string, string[]> | undefined;
  if (paths) {
    out.paths = Object.fromEntries(
      Object.entries(paths).map(([key, targets]) => [
        key,
        targets.map((target) => (isAbsolute(target) ? target : resolve(base, target))),
      ]),
    );
  }
  out.allowJs = true;
  out.allowNonTsExtensions = true;
  return out;
}

/**
 * Finds the projects of a server's languages: every file named in `projectFiles` marks one.
 * `tsconfig.json`/`jsconfig.json` are read with the TypeScript compiler API (extends, include,
 * exclude, files), so the files no project includes are known; other markers (pyproject.toml,
 * pyrightconfig.json, go.mod …) cover their folder, and the server covers the rest itself.
 */
export async function discoverProjects(
  root: string,
  projectFiles: readonly string[],
  extensions: readonly string[],
): Promise<WorkspaceProjects> {
  const walked = await walk(root, new Set(projectFiles), new Set(extensions));
  const result: WorkspaceProjects = {
    configs: walked.markers,
    representatives: [],
    loose: [],
    sourceFiles: walked.sources.length,
    truncated: walked.truncated,
  };
  const tsConfigs = walked.markers.filter((path) => TS_CONFIGS.has(basename(path)));
  for (const marker of walked.markers.filter((path) => !TS_CONFIGS.has(basename(path)))) {
    const folder = dirname(marker);
    const first = walked.sources.find((source) => isInside(folder, source));
    if (first) result.representatives.push(first);
  }
  if (tsConfigs.length === 0) return result;
  const ts = (await import('typescript')).default;
  const covered = new Set<string>();
  let rootOptions: { options: Record<string, unknown>; path: string; depth: number } | undefined;
  for (const config of tsConfigs) {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      config,
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    if (!parsed) continue;
    const depth = config.split('/').length;
    if (!rootOptions || depth < rootOptions.depth)
      rootOptions = { options: parsed.options as Record<string, unknown>, path: config, depth };
    const files = parsed.fileNames.filter(
      (file) =>
        isInside(root, file) && !/\.d\.[cm]?ts$/.test(file) && !file.includes('/node_modules/'),
    );
    for (const file of files) covered.add(file);
    if (files[0] !== undefined) result.representatives.push(files[0]);
  }
  result.loose = walked.sources.filter((source) => !covered.has(source));
  if (rootOptions) result.looseOptions = looseOptionsOf(rootOptions.options, rootOptions.path);
  return result;
}
