import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { SpineError } from '@spine/protocol';

/**
 * A package spine uses when it is installed next to it and does without otherwise (an optional
 * peer dependency of `@spine/cli`): the default install stays small, and `spine doctor` and the
 * error below say how to add one.
 */
export interface OptionalPart {
  /** The npm package. */
  readonly packageName: string;
  /** The version range to install (the CLI's peer range). */
  readonly version: string;
  /** What it is needed for, completing "needed for …". */
  readonly neededFor: string;
}

/** The optional parts spine loads by name. */
export const OPTIONAL_PARTS: {
  /** `@spine/mcp`, for MCP servers. */
  readonly mcp: OptionalPart;
  /** `@spine/acp`, for `spine acp` (editors over the Agent Client Protocol). */
  readonly acp: OptionalPart;
} = {
  mcp: {
    packageName: '@spine/mcp',
    // A 0.x range, so a release of @spine/mcp does not force a major release of the CLI (a
    // changesets rule for peer dependents); the test holds it equal to package.json's.
    version: '0.x',
    neededFor: 'MCP servers (mcp.servers in the configuration, .mcp.json)',
  },
  // The ACP SDK is ~9 MB: only editor users pay for it.
  acp: {
    packageName: '@spine/acp',
    version: '0.x',
    neededFor: '`spine acp` (editors over the Agent Client Protocol)',
  },
};

/** The command that adds `part` where `@spine/cli` is installed. */
export function installCommand(part: OptionalPart): string {
  return `npm i ${part.packageName}@${part.version}`;
}

/** Thrown when something needs an optional part that is not installed (exit code 2). */
export class OptionalPartMissingError extends SpineError {
  /** The package that is missing. */
  readonly packageName: string;

  constructor(options: { part: OptionalPart; cause?: unknown }) {
    const { part } = options;
    super({
      code: 'INVALID_CONFIG',
      message: `${part.packageName} is not installed; it is needed for ${part.neededFor}. Install it where @spine/cli is installed: \`${installCommand(part)}\` (\`npm i -g ${part.packageName}@${part.version}\` for a global spine), or remove the configuration that needs it.`,
      cause: options.cause,
    });
    this.packageName = part.packageName;
  }
}

const require = createRequire(import.meta.url);

/** True when `part` resolves from where this package is installed (beside `@spine/cli` for spine). */
export function isInstalled(part: OptionalPart): boolean {
  // Node's own search path from the CLI's folder; the package's files, not its build, decide
  // (a checkout that was never built still has the package).
  const folders = require.resolve.paths(part.packageName) ?? [];
  return folders.some((folder) => existsSync(join(folder, part.packageName, 'package.json')));
}

/**
 * Converts the module-not-found error of a missing optional part into
 * {@link OptionalPartMissingError}; returns anything else unchanged.
 */
export function explainMissingPart(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return error;
  for (const part of Object.values(OPTIONAL_PARTS) as OptionalPart[]) {
    if (error.message.includes(`'${part.packageName}'`))
      return new OptionalPartMissingError({ part, cause: error });
  }
  return error;
}
