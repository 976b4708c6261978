import { resolve } from 'node:path';
import { connectionOf, newSessionId, UsageError } from '@spine/harness';
import { createPostgresTaskQueue } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { requireStoreUrl } from './store-url.js';

/** A git URL (cloned by each worker) rather than a folder path. */
export function isGitUrl(workspace: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(workspace) || /^[^/\s]+@[^/\s]+:/.test(workspace);
}

/**
 * `spine submit "<task>" --store <url> [--workspace <path|git URL>] [--model] [--profile]`:
 * queues a task for `spine worker`. Prints the task id and the session it will run as.
 */
export async function submitCommand(
  task: string[],
  flags: AgentFlags & { workspace?: string },
): Promise<number> {
  const prompt = task.join(' ').trim();
  if (!prompt) {
    throw new UsageError({
      message: 'spine submit needs a task: spine submit "fix the failing test" --store …',
    });
  }
  const { loaded, cwd } = configForFlags(flags);
  const url = requireStoreUrl(loaded.config, 'submit');
  const workspace = flags.workspace
    ? isGitUrl(flags.workspace)
      ? flags.workspace
      : resolve(flags.workspace)
    : cwd;
  const queue = createPostgresTaskQueue(connectionOf(url));
  try {
    const record = await queue.submit(
      {
        prompt,
        workspace,
        ...(flags.model ? { model: flags.model } : {}),
        ...(flags.profile ? { profile: flags.profile } : {}),
      },
      { sessionId: newSessionId() },
    );
    process.stdout.write(
      flags.json
        ? `${JSON.stringify({ id: record.id, sessionId: record.sessionId, status: record.status })}\n`
        : `queued ${record.id} (session ${record.sessionId}); follow it with spine show ${record.sessionId} --follow\n`,
    );
  } finally {
    await queue.close();
  }
  return EXIT_CODES.ok;
}
