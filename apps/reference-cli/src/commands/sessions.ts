import { preview, readSessionIndex, storeUrlOf, UsageError } from '@spine/harness';
import { visibleJson, visibleText } from '@spine/protocol';
import { formatBytes, formatCost } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { listSessionFolder } from '../history/list-jsonl.js';

/** `spine sessions`: one line per session from headers only (title, time, size, model, cost). */
export async function sessionsCommand(
  flags: AgentFlags & { limit?: string; here?: boolean },
): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  const { config } = loaded;
  if (flags.limit !== undefined && !/^\d+$/.test(flags.limit)) {
    throw new UsageError({ message: `--limit expects a positive integer, got "${flags.limit}"` });
  }
  const storeUrl = storeUrlOf(config);
  if (storeUrl) return (await import('../workers/sessions.js')).listStoreSessions(storeUrl, flags);
  // The folder is listed with its problems rather than by the store's `list()` (which leaves them
  // out) so that one unreadable file, or one whose name no command accepts, is marked.
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  const { summaries: all, problems } = listSessionFolder(
    config.sessionDir,
    flags.here || limit === undefined ? {} : { limit },
  );
  const mine = flags.here ? all.filter((summary) => summary.header.cwd === cwd) : all;
  const summaries = limit === undefined ? mine : mine.slice(0, limit);
  const rows = summaries.map((summary) => {
    const index = readSessionIndex(config.sessionDir, summary.id);
    return {
      id: summary.id,
      // The latest `session/title` (kept in the index), else the header's.
      title: index?.title ?? summary.header.title ?? '',
      createdAt: summary.header.createdAt,
      updatedAt: index?.updatedAt ?? summary.updatedAt ?? summary.header.createdAt,
      sizeBytes: summary.sizeBytes,
      // The model last used (kept in the index; a session may switch), else the one it began with.
      model: index?.model ?? summary.header.model ?? '',
      costUsd: index?.costUsd,
      parent: summary.header.parent?.sessionId,
      // A subagent's session: its header names the parent's task call.
      subagent: summary.header.parent?.toolCallId !== undefined,
    };
  });
  // Files that are not openable sessions: one line each, on stderr with --json (stdout stays rows).
  const problemLines = problems.map(
    (problem) => `! ${visibleText(problem.name)}: ${visibleText(problem.reason)}\n`,
  );
  if (flags.json) {
    process.stdout.write(
      visibleJson(rows.map((row) => JSON.stringify(row)).join('\n')) + (rows.length ? '\n' : ''),
    );
    process.stderr.write(problemLines.join(''));
    return EXIT_CODES.ok;
  }
  if (rows.length === 0) {
    process.stdout.write(problemLines.join(''));
    process.stdout.write(
      `No sessions in ${config.sessionDir}. Start one with \`spine\` or \`spine run "task"\`.\n`,
    );
    return EXIT_CODES.ok;
  }
  // Session ids are 26 characters; a subagent's may be a 36-character UUID: the column fits the longest.
  const idWidth = Math.max(26, ...rows.map((row) => visibleText(row.id).length));
  const lines = rows.map((row) =>
    [
      visibleText(row.id).padEnd(idWidth),
      visibleText(row.updatedAt.slice(0, 16).replace('T', ' ')),
      formatBytes(row.sizeBytes).padStart(9),
      visibleText(row.model).padEnd(28),
      formatCost(row.costUsd).padStart(8),
      visibleText(preview(row.subagent ? `↳ ${row.title}` : row.title, 50)),
    ].join('  '),
  );
  const head = [
    'id'.padEnd(idWidth),
    'updated'.padEnd(16),
    'size'.padStart(9),
    'model'.padEnd(28),
    'cost'.padStart(8),
    'title',
  ];
  process.stdout.write(`${head.join('  ')}\n${lines.join('\n')}\n${problemLines.join('')}`);
  return EXIT_CODES.ok;
}
