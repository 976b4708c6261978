import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connectionOf, SessionNotFoundError, storeUrlOf } from '@spine/harness';
import { visibleText } from '@spine/protocol';
import { SessionCorruptError, verifyJsonlLog } from '@spine/session-log';
import { styleFor } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/**
 * `spine verify <id> [--json]`: checks the tamper-evident chain of a stored JSONL session, every
 * line of it (events no request carried included), and names the first altered, removed,
 * inserted or reordered event. With a PostgreSQL store (`--store`), it checks the per-row chain of
 * the session's rows instead and names the first edited, deleted or reordered row. Exit 5 when the
 * log does not verify (bytes appended after the last line, or a last line altered and left without
 * its newline, included); exit 2 when the file is empty (not a session). Exit 0 with a `!` (and
 * `tail` in the JSON) when the events verify and a torn last write follows them: what a crash
 * during an append leaves, not committed, dropped by the store on the next open.
 */
export async function verifyCommand(
  id: string,
  flags: AgentFlags & { json?: boolean },
): Promise<number> {
  const { config } = configForFlags(flags).loaded;
  const url = storeUrlOf(config);
  if (url) return verifyStored(id, url, flags.json === true);
  const path = join(config.sessionDir, `${id}.jsonl`);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(id) || !existsSync(path)) {
    throw new SessionNotFoundError({ sessionId: id, dir: config.sessionDir });
  }
  if (statSync(path).size === 0) {
    throw new SessionCorruptError({
      file: path,
      line: 1,
      reason: 'the file is empty: it holds no session/header, so it is not a session',
    });
  }
  const started = performance.now();
  const result = verifyJsonlLog(path);
  const seconds = (performance.now() - started) / 1000;
  const bytes = statSync(path).size;
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ id, ...result, seconds: +seconds.toFixed(3) })}\n`);
    return result.ok ? EXIT_CODES.ok : EXIT_CODES.mismatch;
  }
  const style = styleFor(process.stdout);
  const rate = seconds > 0 ? `${(bytes / 1e6 / seconds).toFixed(0)} MB/s` : '';
  if (!result.ok) {
    process.stdout.write(
      `${style.red('✗')} ${id}: ${visibleText(result.problem?.message ?? 'does not verify')}\n` +
        `  checked ${result.events} event(s) before it (${rate})\n`,
    );
    return EXIT_CODES.mismatch;
  }
  if (result.tail) {
    process.stdout.write(
      `${style.yellow('!')} ${id}: ${result.events} event(s) verify, then ${visibleText(result.tail.message)}\n` +
        `  head ${result.head || '(none)'} · ${result.bytes} of ${bytes} bytes verified · ${rate}\n`,
    );
    return EXIT_CODES.ok;
  }
  const scope =
    result.chainedFrom === undefined
      ? `no event carries a chain value (written before the chain existed): nothing to verify`
      : result.chainedFrom === 1
        ? `every event chains from the header`
        : `events ${result.chainedFrom}..${result.events} chain; 1..${result.chainedFrom - 1} were written before the chain existed`;
  process.stdout.write(
    `${result.chainedFrom === undefined ? style.yellow('!') : style.green('✓')} ${id}: ${result.events} event(s), ${scope}\n` +
      `  head ${result.head || '(none)'} · ${rate}\n`,
  );
  return EXIT_CODES.ok;
}

/** `spine verify <id> --store <url>`: the per-row chain of a session in PostgreSQL. */
async function verifyStored(id: string, url: string, json: boolean): Promise<number> {
  const { verifyPostgresChain } = await import('@spine/store-postgres');
  const started = performance.now();
  const result = await verifyPostgresChain(connectionOf(url), id);
  const seconds = (performance.now() - started) / 1000;
  if (json) {
    process.stdout.write(`${JSON.stringify({ id, ...result, seconds: +seconds.toFixed(3) })}\n`);
    return result.ok ? EXIT_CODES.ok : EXIT_CODES.mismatch;
  }
  const style = styleFor(process.stdout);
  if (!result.ok) {
    process.stdout.write(
      `${style.red('✗')} ${visibleText(id)}: ${visibleText(result.problem?.message ?? 'does not verify')}\n` +
        `  checked ${result.events} row(s) before it\n`,
    );
    return EXIT_CODES.mismatch;
  }
  process.stdout.write(
    `${style.green('✓')} ${visibleText(id)}: ${result.events} row(s), every row chains from the header\n` +
      `  head ${result.head || '(none)'}\n`,
  );
  return EXIT_CODES.ok;
}
