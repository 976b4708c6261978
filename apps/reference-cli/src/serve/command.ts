// `spine serve`: the audit views over HTTP on 127.0.0.1, behind a random token in the printed URL.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSessionIndex, storeFor, storeUrlOf, UsageError } from '@spine/harness';
import type { PostgresStore } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { listSessionFolder } from '../history/list-jsonl.js';
import type { SessionList } from './pages.js';
import { createAuditServer } from './server.js';

/**
 * `spine serve [--port N]`: serves the session list, paged session timelines (followed live while
 * a session runs) and the full verified audit, until Ctrl-C or SIGTERM. Read-only.
 */
export async function serveCommand(flags: AgentFlags & { port?: string }): Promise<number> {
  if (flags.port !== undefined && !/^\d{1,5}$/.test(flags.port))
    throw new UsageError({
      message: `--port expects a port number (0 picks a free one), got "${flags.port}"`,
    });
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (port > 65_535) throw new UsageError({ message: `--port ${port} is not a port number` });
  const { config } = configForFlags(flags).loaded;
  const store = storeFor(config);
  const postgres = storeUrlOf(config) !== undefined;
  const token = randomBytes(24).toString('base64url');
  const rows = async (): Promise<SessionList> => {
    // A JSONL folder is listed so that one unreadable file is marked, not a failure of the list.
    const listing = postgres
      ? { summaries: await store.list(), problems: [] }
      : listSessionFolder(config.sessionDir);
    const summaries = listing.summaries;
    const sorted = summaries.sort((a, b) =>
      (b.updatedAt ?? b.header.createdAt).localeCompare(a.updatedAt ?? a.header.createdAt),
    );
    const sessions = sorted.map((summary) => {
      const index = postgres ? undefined : readSessionIndex(config.sessionDir, summary.id);
      const leasedBy = (summary as { leasedBy?: string }).leasedBy;
      const locked = !postgres && existsSync(join(config.sessionDir, `${summary.id}.jsonl.lock`));
      const status = leasedBy ? `running (${leasedBy})` : locked ? 'running' : 'closed';
      return {
        summary,
        title: index?.title ?? summary.header.title ?? '',
        model: index?.model ?? summary.header.model ?? '',
        ...(index?.costUsd === undefined ? {} : { costUsd: index.costUsd }),
        status,
      };
    });
    return { rows: sessions, problems: listing.problems };
  };
  const server = createAuditServer({
    store,
    token,
    rows,
    ...(postgres
      ? {
          // One row of the followed session, not the whole list, each time the follow looks.
          leased: async (id: string) =>
            (await (store as PostgresStore).leaseHolder(id)) !== undefined,
        }
      : { sessionDir: config.sessionDir }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(
    `spine serve: read-only, 127.0.0.1 only\nhttp://127.0.0.1:${bound}/?token=${token}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.closeAllConnections();
      server.close(() => resolve());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await (store as { close?: () => Promise<void> }).close?.();
  return EXIT_CODES.ok;
}

/** A refused `listen` as what the user can do about it (exit 2), not as a file system error. */
function listenError(error: NodeJS.ErrnoException, port: number): Error {
  if (error.code === 'EADDRINUSE')
    return new UsageError({
      message: `port ${port} is already in use on 127.0.0.1; pass another --port (0 picks a free one)`,
    });
  if (error.code === 'EACCES' || error.code === 'EPERM')
    return new UsageError({
      message: `listening on port ${port} is not allowed for this user (${error.code}); pass a port above 1023, or --port 0 for a free one`,
    });
  return error;
}
