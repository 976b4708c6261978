// The four servers found on PATH share this file: each is a few lines of configuration, and
// one file per backend would be far under the 50-line floor of the house style.

import { createTypescriptServer } from './server-typescript.js';
import type { LanguageServerConfig } from './types.js';

/** Options shared by servers found on `PATH`. */
export interface PathServerOptions {
  /** Override the executable (absolute path or name on `PATH`). */
  command?: string;
  /** Override the arguments. */
  args?: string[];
  /** Sent as `initializationOptions`. */
  initializationOptions?: LanguageServerConfig['initializationOptions'];
}

function pathServer(
  base: Omit<LanguageServerConfig, 'initializationOptions'>,
  options: PathServerOptions,
): LanguageServerConfig {
  return {
    ...base,
    command: options.command ?? base.command,
    args: options.args ?? base.args,
    ...(options.initializationOptions === undefined
      ? {}
      : { initializationOptions: options.initializationOptions }),
  };
}

/** Configures pyright (`pyright-langserver --stdio`) for Python, when found on `PATH`. */
export function createPyrightServer(options: PathServerOptions = {}): LanguageServerConfig {
  return pathServer(
    {
      id: 'python',
      languages: { '.py': 'python', '.pyi': 'python' },
      command: 'pyright-langserver',
      args: ['--stdio'],
      installHint: 'npm i -g pyright',
    },
    options,
  );
}

/** Configures gopls for Go, when found on `PATH`. */
export function createGoplsServer(options: PathServerOptions = {}): LanguageServerConfig {
  return pathServer(
    {
      id: 'go',
      languages: { '.go': 'go' },
      command: 'gopls',
      args: [],
      projectFiles: ['go.mod', 'go.work'],
      versionArgs: ['version'],
      installHint: 'go install golang.org/x/tools/gopls@latest',
    },
    options,
  );
}

/** Configures rust-analyzer for Rust, when found on `PATH`. */
export function createRustAnalyzerServer(options: PathServerOptions = {}): LanguageServerConfig {
  return pathServer(
    {
      id: 'rust',
      languages: { '.rs': 'rust' },
      command: 'rust-analyzer',
      args: [],
      projectFiles: ['Cargo.toml'],
      versionArgs: ['--version'],
      installHint: 'rustup component add rust-analyzer',
    },
    options,
  );
}

/** Configures clangd for C and C++, when found on `PATH`. */
export function createClangdServer(options: PathServerOptions = {}): LanguageServerConfig {
  return pathServer(
    {
      id: 'c',
      languages: {
        '.c': 'c',
        '.h': 'c',
        '.cc': 'cpp',
        '.cpp': 'cpp',
        '.cxx': 'cpp',
        '.hpp': 'cpp',
        '.hh': 'cpp',
      },
      command: 'clangd',
      args: [],
      projectFiles: ['compile_commands.json', 'compile_flags.txt'],
      versionArgs: ['--version'],
      installHint: 'apt-get install clangd',
    },
    options,
  );
}

/**
 * The default registry: typescript-language-server (bundled), then pyright, gopls,
 * rust-analyzer and clangd, each usable when its command is found.
 */
export function defaultServers(): LanguageServerConfig[] {
  return [
    createTypescriptServer(),
    createPyrightServer(),
    createGoplsServer(),
    createRustAnalyzerServer(),
    createClangdServer(),
  ];
}
