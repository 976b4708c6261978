// `spine serve`: the audit views over HTTP on 127.0.0.1, behind a random token in the printed URL.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSessionIndex, storeFor, storeUrlOf, UsageError } from '@spine/harness';
import type { PostgresStore } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import type { SessionRow } from './pages.js';
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
  const rows = async (): Promise<SessionRow[]> => {
    const summaries = await store.list();
    const sorted = summaries.sort((a, b) =>
      (b.updatedAt ?? b.header.createdAt).localeCompare(a.updatedAt ?? a.header.createdAt),
    );
    return sorted.map((summary) => {
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
    server.once('error', reject);
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
