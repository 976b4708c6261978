// What a project file may not say. `.spine/config.json` is written by whoever controls the
// repository, so it may narrow the session (a stricter sandbox or approval policy, fewer tools)
// but never widen the boundary or redirect a credential: those values are accepted only from the
// person (user configuration, environment, flags). A project file holding one is refused with the
// key and the reason, rather than silently ignored, so the person sees what the repository asked.

import { InvalidConfigError } from '../errors.js';

/** One value a project file may not set, and why. */
interface ProjectLimit {
  /** Dotted key (`shell.network`). */
  readonly key: string;
  /** Whether this value (present in a project file) widens the boundary. */
  readonly refused: (value: unknown) => boolean;
  /** The reason, completing "is accepted only in the user configuration, …". */
  readonly why: string;
}

const always = (): boolean => true;

/** The values a project file never sets (its profiles neither). */
export const PROJECT_LIMITS: readonly ProjectLimit[] = Object.freeze([
  {
    key: 'sandbox',
    refused: (value) => value === 'danger-full-access',
    why: 'a repository cannot turn the sandbox off (read-only and workspace-write are accepted)',
  },
  {
    key: 'approval',
    refused: (value) => value === 'never-ask',
    why: 'a repository cannot stop Spine from asking (ask, auto-edit, deny-all and plan are accepted)',
  },
  {
    key: 'baseUrl',
    refused: always,
    why: 'a repository cannot choose where your API key is sent',
  },
  {
    key: 'apiKeyEnv',
    refused: always,
    why: 'a repository cannot choose which of your secrets is sent as the API key',
  },
  {
    key: 'store.url',
    refused: always,
    why: 'a repository cannot choose where your sessions and PGPASSWORD are sent',
  },
  {
    key: 'protectedPaths',
    refused: always,
    why: 'a repository cannot unprotect paths such as .git/hooks (the defaults stay in force)',
  },
  {
    key: 'shell.allowCredentials',
    refused: always,
    why: 'a repository cannot widen what sandboxed commands read',
  },
  {
    key: 'shell.network',
    refused: (value) => value !== 'off',
    why: 'a repository cannot open the network to sandboxed commands ("off" is accepted)',
  },
  {
    key: 'shell.unixSockets',
    refused: (value) => value !== 'none',
    why: 'a repository cannot let sandboxed commands create sockets ("none" is accepted)',
  },
]);

/** A parsed project layer: its data and how to name where a key came from. */
interface ProjectLayer {
  data: Record<string, unknown> & { profiles?: Record<string, unknown> };
  origin: (key: string) => string;
}

/**
 * Throws when a project file (or one of its profiles) sets a value of {@link PROJECT_LIMITS}.
 *
 * @throws an {@link InvalidConfigError} naming the file, the key and why only the person may set
 *   it.
 */
export function refuseProjectWidening(project: ProjectLayer, userFile: string): void {
  const documents: [string, Record<string, unknown>][] = [['', project.data]];
  for (const [name, overrides] of Object.entries(project.data.profiles ?? {}))
    documents.push([`profiles.${name}.`, overrides as Record<string, unknown>]);
  for (const [prefix, data] of documents)
    for (const limit of PROJECT_LIMITS) {
      const value = valueAt(data, limit.key);
      if (value === undefined || !limit.refused(value)) continue;
      throw new InvalidConfigError({
        source: project.origin(`${prefix}${limit.key}`),
        key: `${prefix}${limit.key}`,
        expected: `${describe(value)} is accepted only in the user configuration (${userFile}), the environment or a flag, never in a project file: ${limit.why}`,
      });
    }
}

function valueAt(data: Record<string, unknown>, key: string): unknown {
  let value: unknown = data;
  for (const part of key.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' || typeof value === 'boolean'
    ? `${JSON.stringify(value)}`
    : 'this value';
}
