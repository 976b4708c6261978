import { newSessionId, SessionNotFoundError, storeFor, UsageError } from '@spine/harness';
import { Session } from '@spine/session-log';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { titleFork } from '../interactive/fork-title.js';

/** `spine fork <id> --at <seq>`: a new session sharing the parent's history up to `seq`. */
export async function forkCommand(
  id: string,
  flags: AgentFlags & { at?: string },
): Promise<number> {
  // Seq 1 is the header, which every fork has of its own: the first seq to fork at is 1 (the
  // header alone), so 0 and 00 are refused here like any other non-seq.
  if (flags.at === undefined || !/^\d+$/.test(flags.at) || Number(flags.at) < 1) {
    throw new UsageError({
      message: `--at expects the seq to fork at (a positive integer), got "${flags.at ?? ''}"`,
    });
  }
  const { config } = configForFlags(flags).loaded;
  const store = storeFor(config);
  if (!(await store.exists(id)))
    throw new SessionNotFoundError({ sessionId: id, dir: config.sessionDir });
  const parent = await Session.open({ store, id, readOnly: true });
  try {
    if (Number(flags.at) > parent.lastSeq) {
      throw new UsageError({
        message: `--at ${flags.at} is past the end of ${id} (last seq ${parent.lastSeq})`,
      });
    }
    const child = await parent.fork(Number(flags.at), { store, id: newSessionId() });
    // The fork carries the parent's title.
    titleFork(child, parent, config.sessionDir);
    await child.close();
    if (flags.json)
      process.stdout.write(`${JSON.stringify({ id: child.id, header: child.header })}\n`);
    else {
      process.stdout.write(`${child.id}\n`);
      process.stderr.write(
        `forked ${id} at seq ${flags.at}; continue with: spine resume ${child.id} "…"\n`,
      );
    }
    return EXIT_CODES.ok;
  } finally {
    await parent.close();
  }
}
