import { connectionOf, postgresStoreFor, preview } from '@spine/harness';
import { type SessionStore, visibleText } from '@spine/protocol';
import { createPostgresTaskQueue, type TaskRecord } from '@spine/store-postgres';
import type { AgentFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** One line of `spine sessions --store`. */
export interface StoreSessionRow {
  id: string;
  /** queued · running on <worker> · done · failed · open by <writer> · idle */
  status: string;
  task?: string;
  updatedAt: string;
  title: string;
}

function statusOf(task: TaskRecord | undefined, leasedBy: string | undefined): string {
  if (task?.status === 'running') {
    const expired =
      task.leaseExpiresAt !== undefined && Date.parse(task.leaseExpiresAt) < Date.now();
    return `running on ${task.worker ?? '?'}${expired ? ' (claim expired: worker gone?)' : ''}`;
  }
  if (task) return task.status;
  return leasedBy ? `open by ${leasedBy}` : 'idle';
}

/** The title the latest `session/title` event of session `id` set, if any. */
async function latestTitle(store: SessionStore, id: string): Promise<string | undefined> {
  let title: string | undefined;
  for await (const event of store.readRange(id, { fromSeq: 1, types: ['session/title'] })) {
    const value = (event.body as { title?: unknown }).title;
    if (typeof value === 'string' && value !== '') title = value;
  }
  return title;
}

/** `spine sessions --store <url>`: sessions and queued tasks across machines, with their status. */
export async function listStoreSessions(
  url: string,
  flags: AgentFlags & { limit?: string },
): Promise<number> {
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  const store = postgresStoreFor(url);
  const queue = createPostgresTaskQueue(connectionOf(url));
  try {
    const [sessions, tasks] = await Promise.all([
      store.list(limit === undefined ? {} : { limit }),
      queue.list(limit === undefined ? {} : { limit }),
    ]);
    const bySession = new Map(tasks.map((task) => [task.sessionId, task]));
    // The latest `session/title` of each session (a PostgreSQL store keeps no local index).
    const titles = new Map(
      await Promise.all(
        sessions.map(
          async (summary) => [summary.id, await latestTitle(store, summary.id)] as const,
        ),
      ),
    );
    const rows: StoreSessionRow[] = sessions.map((summary) => {
      const task = bySession.get(summary.id);
      bySession.delete(summary.id);
      return {
        id: summary.id,
        status: statusOf(task, summary.leasedBy),
        ...(task ? { task: task.id } : {}),
        updatedAt: summary.updatedAt ?? summary.header.createdAt,
        title: titles.get(summary.id) ?? summary.header.title ?? task?.spec.prompt ?? '',
      };
    });
    // Tasks no worker has started yet have no session row.
    for (const task of bySession.values()) {
      rows.push({
        id: task.sessionId,
        status: statusOf(task, undefined),
        task: task.id,
        updatedAt: task.updatedAt,
        title: task.spec.prompt,
      });
    }
    rows.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const shown = limit === undefined ? rows : rows.slice(0, limit);
    if (flags.json) {
      for (const row of shown) process.stdout.write(`${JSON.stringify(row)}\n`);
      return EXIT_CODES.ok;
    }
    if (shown.length === 0) {
      process.stdout.write(
        'No sessions or tasks in this store. Queue one with `spine submit "task" --store …`.\n',
      );
      return EXIT_CODES.ok;
    }
    const head = ['id'.padEnd(26), 'updated'.padEnd(16), 'status'.padEnd(34), 'title'];
    const lines = shown.map((row) =>
      [
        visibleText(row.id).padEnd(26),
        row.updatedAt.slice(0, 16).replace('T', ' '),
        visibleText(row.status).padEnd(34),
        preview(row.title, 50),
      ].join('  '),
    );
    process.stdout.write(`${head.join('  ')}\n${lines.join('\n')}\n`);
    return EXIT_CODES.ok;
  } finally {
    await queue.close();
    await store.close();
  }
}
