import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LanguageServerConfig } from './types.js';

/** Options of {@link createTypescriptServer}. */
export interface TypescriptServerOptions {
  /**
   * Path to a `tsserver.js` used when the workspace has no `typescript` of its own; default:
   * the `typescript` this package depends on.
   */
  fallbackTsserverPath?: string;
  /** Extra `initializationOptions` merged over the defaults. */
  initializationOptions?: Record<string, unknown>;
}

const require = createRequire(import.meta.url);

function resolveOrUndefined(specifier: string): string | undefined {
  try {
    return require.resolve(specifier);
  } catch {
    return undefined;
  }
}

/** Extensions served by typescript-language-server, with their LSP language ids. */
export const TYPESCRIPT_LANGUAGES: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescriptreact',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascriptreact',
};

/**
 * Configures typescript-language-server for TypeScript and JavaScript, started with this Node
 * binary from the package's own dependency (not from `PATH`), so it works out of the box.
 *
 * The semantic server answers every request (`useSyntaxServer: 'never'`): otherwise the first
 * answers come from the syntax server and miss other files until the project has loaded.
 *
 * @example
 * ```ts
 * const manager = createLspManager({ cwd, servers: [createTypescriptServer()] });
 * ```
 */
export function createTypescriptServer(
  options: TypescriptServerOptions = {},
): LanguageServerConfig {
  const cli = resolveOrUndefined('typescript-language-server/lib/cli.mjs');
  const typescriptMain = resolveOrUndefined('typescript');
  const fallbackPath =
    options.fallbackTsserverPath ??
    (typescriptMain ? join(dirname(typescriptMain), 'tsserver.js') : undefined);
  return {
    id: 'typescript',
    languages: { ...TYPESCRIPT_LANGUAGES },
    // Without the dependency, fall back to a typescript-language-server on PATH.
    command: cli ? process.execPath : 'typescript-language-server',
    args: cli ? [cli, '--stdio'] : ['--stdio'],
    versionArgs: cli ? [cli, '--version'] : ['--version'],
    initializationOptions: {
      tsserver: { useSyntaxServer: 'never', ...(fallbackPath ? { fallbackPath } : {}) },
      // No automatic type acquisition: tsserver would run npm in the background (network, a
      // package cache under the user's home) for every untyped import of a JavaScript project.
      disableAutomaticTypingAcquisition: true,
      ...options.initializationOptions,
    } as LanguageServerConfig['initializationOptions'],
    installHint: 'npm i typescript-language-server typescript',
  };
}
