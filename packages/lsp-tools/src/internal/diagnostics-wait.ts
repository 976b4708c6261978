import { setTimeout as sleep } from 'node:timers/promises';
import type { Diagnostic, DocumentDiagnosticReport } from 'vscode-languageserver-protocol/node';
import { LspAbortedError, LspFailedError } from '../errors.js';
import { DocumentSync } from './documents.js';
import type { ServerSession } from './server-pool.js';
import { forwardsTsserver, tsserverRequest } from './tsserver.js';

/** Timing of {@link settledDiagnostics}. */
export interface SettleOptions {
  /** Diagnostics count as settled once unchanged for this long (ms). */
  quietMs: number;
  /** A file that already had diagnostics keeps them if nothing new arrives within this (ms). */
  settleMs: number;
  /** Upper bound for the first diagnostics of a newly opened file (ms). */
  timeoutMs: number;
  signal?: AbortSignal;
}

const POLL_MS = 20;

interface TsserverDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
  source?: string;
}

const CATEGORY_SEVERITY: Record<string, 1 | 2 | 3 | 4> = {
  error: 1,
  warning: 2,
  message: 3,
  suggestion: 4,
};

/**
 * Asks tsserver (through typescript-language-server) for a file's syntactic, semantic and
 * suggestion diagnostics. These requests compute the answer for the current content, so there
 * is nothing to wait for. Undefined when the server cannot forward tsserver requests.
 */
async function tsserverDiagnostics(
  session: ServerSession,
  path: string,
  signal: AbortSignal | undefined,
): Promise<Diagnostic[] | undefined> {
  const { client } = session;
  if (!forwardsTsserver(client)) return undefined;
  const kinds = [
    'syntacticDiagnosticsSync',
    'semanticDiagnosticsSync',
    'suggestionDiagnosticsSync',
  ];
  const answers = await Promise.all(
    kinds.map((kind) =>
      tsserverRequest<TsserverDiagnostic[]>(client, kind, { file: path }, signal),
    ),
  );
  return answers.flatMap((answer) =>
    (answer ?? []).map((item) => {
      const diagnostic: Diagnostic = {
        range: {
          start: { line: item.start.line - 1, character: item.start.offset - 1 },
          end: { line: item.end.line - 1, character: item.end.offset - 1 },
        },
        severity: CATEGORY_SEVERITY[item.category] ?? 1,
        message: item.text,
        source: item.source ?? 'typescript',
      };
      if (item.code !== undefined) diagnostic.code = item.code;
      return diagnostic;
    }),
  );
}

/**
 * The diagnostics of `uri` once the server has settled. tsserver is asked directly for the
 * file's current diagnostics (no waiting). Pull servers are asked directly
 * (`textDocument/diagnostic`). For push servers: wait for a publish newer than the last
 * document sync, then for `quietMs` without another one (servers often publish syntax errors
 * first and semantic ones a moment later; the very first publish of a file waits twice as
 * long). Servers skip publishing when a clean file stays clean, so a clean file stays clean
 * after `settleMs` without news; a file with problems waits up to five times as long, since
 * servers do re-publish non-empty lists after a change.
 */
export async function settledDiagnostics(
  session: ServerSession,
  path: string,
  options: SettleOptions,
): Promise<Diagnostic[]> {
  const uri = DocumentSync.uriOf(path);
  const { client } = session;
  const direct = await tsserverDiagnostics(session, path, options.signal);
  if (direct) return direct;
  if (client.capabilities.diagnosticProvider) {
    const report = await client.request<unknown, DocumentDiagnosticReport>(
      { method: 'textDocument/diagnostic' },
      { textDocument: { uri } },
      { signal: options.signal },
    );
    return report.kind === 'full' ? report.items : (client.diagnostics.get(uri)?.items ?? []);
  }
  const since = session.documents.staleBefore(path);
  const start = performance.now();
  for (;;) {
    if (options.signal?.aborted)
      throw new LspAbortedError({ method: 'textDocument/publishDiagnostics' });
    if (!client.alive) {
      throw new LspFailedError({
        serverId: client.serverId,
        message: `${client.exitReason} while waiting for diagnostics; it is restarted on the next query`,
      });
    }
    const entry = client.diagnostics.get(uri);
    const now = performance.now();
    if (entry && entry.receivedAt >= since) {
      const quietMs = entry.count === 1 ? options.quietMs * 2 : options.quietMs;
      if (now - entry.receivedAt >= quietMs || now - start >= options.timeoutMs) return entry.items;
    } else if (entry) {
      const settleMs = entry.items.length === 0 ? options.settleMs : options.settleMs * 5;
      if (now - start >= Math.min(settleMs, options.timeoutMs)) return entry.items;
    } else if (!entry && now - start >= options.timeoutMs) {
      throw new LspFailedError({
        serverId: client.serverId,
        message: `The ${client.serverId} language server published no diagnostics for ${uri} within ${options.timeoutMs} ms; try again`,
      });
    }
    await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
  }
}
