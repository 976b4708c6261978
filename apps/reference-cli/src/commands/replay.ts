import { createHash } from 'node:crypto';
import {
  type ReplayedRequest,
  ReplayInputMissingError,
  type ReplayReport,
  type RequestHeaderBody,
  replayStream,
} from '@spine/agent-loop';
import {
  resolveModel,
  SessionNotFoundError,
  type SpineConfig,
  storeFor,
  UsageError,
} from '@spine/harness';
import {
  type ModelClient,
  type ModelRequest,
  type SessionHeaderBody,
  type SessionStore,
  SpineError,
} from '@spine/protocol';
import { Session } from '@spine/session-log';
import { formatBytes, styleFor } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/**
 * `spine replay <id> [--request N] [--verify] [--json]`: rebuilds every recorded request from the
 * log and checks its hashes; `--request N` prints what the model saw at request N (the exact wire
 * body when the provider's client can encode it). Exit 5 on a mismatch with `--verify`.
 */
export async function replayCommand(
  id: string,
  flags: AgentFlags & { request?: string; verify?: boolean },
): Promise<number> {
  if (flags.request !== undefined && !/^[1-9]\d*$/.test(flags.request)) {
    throw new UsageError({
      message: `--request expects a request number (1, 2, …), got "${flags.request}"`,
    });
  }
  const { config } = configForFlags(flags).loaded;
  const store = storeFor(config);
  if (!(await store.exists(id)))
    throw new SessionNotFoundError({ sessionId: id, dir: config.sessionDir });
  // What replay needs besides the log itself, from one streamed pass: the headers' encoders and
  // whether there are children to verify once the session is closed again.
  const scan = await scanLog(store, id);
  // A session can switch provider on resume: each request is encoded by its own provider.
  const encoders = await encodersFor(config, scan);
  // `--request N`: the request replay rebuilds for the Nth header (the CLI builds none itself).
  const wanted =
    flags.request === undefined ? undefined : scan.headerSeqs[Number(flags.request) - 1];
  // Opened lazily: replay streams the log, holding the surface and what resolving headers needs.
  const session = await Session.open({ store, id, readOnly: true, history: 'lazy' });
  let report: ReplayReport;
  try {
    let rebuilt: ModelRequest | undefined;
    report = await replayStream(session, {
      onRequest: (request, entry) => {
        if (entry.seq === wanted) rebuilt = request;
        const wire = entry.ok ? encoders.get(entry.seq)?.encodeRequest?.(request) : undefined;
        if (wire === undefined) return;
        entry.wireBytes = Buffer.byteLength(wire);
        entry.wireHash = `sha256:${createHash('sha256').update(wire).digest('hex')}`;
      },
    });
    if (flags.request !== undefined) {
      const entry = report.requests[Number(flags.request) - 1];
      if (!entry) {
        throw new UsageError({
          message: `${id} has ${report.requests.length} recorded requests; --request ${flags.request} is out of range`,
        });
      }
      if (!rebuilt) throw notRebuilt(flags.request, entry);
      const request = rebuilt;
      const wire = encoders.get(entry.seq)?.encodeRequest?.(request);
      if (flags.json)
        process.stdout.write(`${JSON.stringify({ ...entry, request, wire }, null, 2)}\n`);
      else process.stdout.write(`${wire ?? JSON.stringify(request, null, 2)}\n`);
      if (!entry.ok)
        process.stderr.write(
          `request ${flags.request} does not match its recorded hash: ${entry.mismatch?.field}\n`,
        );
      return entry.ok || !flags.verify ? EXIT_CODES.ok : EXIT_CODES.mismatch;
    }
  } finally {
    await session.close();
  }
  printReport(report, Boolean(flags.json));
  // Children are replayed after the parent is closed, and only when it started any (with none,
  // the tree's verdict is the parent's own).
  let children = report.ok;
  if (scan.hasChildren) {
    const { verifyChildren } = await import('../agents/tree-view.js');
    const out = {
      out: process.stdout,
      style: styleFor(process.stdout),
      quiet: Boolean(flags.json),
    };
    children = await verifyChildren(store, id, out);
  }
  return (report.ok && children) || !flags.verify ? EXIT_CODES.ok : EXIT_CODES.mismatch;
}

/** Prints the report: JSON, or one line per request and the verdict. */
function printReport(report: ReplayReport, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const style = styleFor(process.stdout);
  report.requests.forEach((entry, index) => {
    const mark = entry.ok
      ? style.green('ok')
      : style.red(`MISMATCH ${entry.mismatch?.field ?? ''}`);
    const wire =
      entry.wireBytes === undefined
        ? ''
        : ` wire ${formatBytes(entry.wireBytes)} ${entry.wireHash?.slice(0, 19)}`;
    const mismatch = entry.mismatch;
    let where = mismatch?.eventSeq === undefined ? '' : ` (event seq ${mismatch.eventSeq})`;
    // A blob is named by its hash: which image, and whether it is gone or its bytes changed.
    if (mismatch?.field.startsWith('images[')) {
      const state = mismatch.actual === 'missing' ? 'missing' : `altered (now ${mismatch.actual})`;
      where += ` blob ${mismatch.expected} ${state}`;
    }
    process.stdout.write(
      `request ${index + 1}: seq ${entry.seq} turn ${entry.turn} step ${entry.step} attempt ${entry.attempt} ${mark}${where}${wire}\n`,
    );
  });
  const verdict = report.ok
    ? `verified: all ${report.requests.length} requests rebuilt from the log match their recorded hashes`
    : `MISMATCH at request seq ${report.firstMismatch?.seq}: field ${report.firstMismatch?.mismatch?.field}`;
  process.stdout.write(`${report.ok ? style.green(verdict) : style.red(verdict)}\n`);
}

/** What one streamed pass over a log finds for replay. */
interface LogScan {
  /** The model the session was created with. */
  model: string | undefined;
  /** Seqs of the `request/header`s, in order. */
  headerSeqs: number[];
  /** `provider/model` each header names, by its seq (absent when it names none). */
  headerModels: Map<number, string>;
  /** True when the session started subagents. */
  hasChildren: boolean;
}

/** Reads the header, the request headers and child starts as a stream (nothing else is held). */
async function scanLog(store: SessionStore, id: string): Promise<LogScan> {
  const scan: LogScan = {
    model: undefined,
    headerSeqs: [],
    headerModels: new Map(),
    hasChildren: false,
  };
  const types = ['session/header', 'request/header', 'agent/child/start'];
  for await (const event of store.readRange(id, { fromSeq: 1, types })) {
    if (event.type === 'session/header') scan.model = (event.body as SessionHeaderBody).model;
    else if (event.type === 'agent/child/start') scan.hasChildren = true;
    else {
      scan.headerSeqs.push(event.seq);
      const header = event.body as Partial<RequestHeaderBody>;
      if (header.provider && header.model)
        scan.headerModels.set(event.seq, `${header.provider}/${header.model}`);
    }
  }
  return scan;
}

/**
 * Why replay could not rebuild request `n`: its system prompt or tool list is not in the log,
 * or no longer matches its recorded hash (never an empty stand-in: the CLI builds no requests).
 */
function notRebuilt(n: string, entry: ReplayedRequest): SpineError {
  const { field = 'messages', expected, actual } = entry.mismatch ?? {};
  const what = field === 'system' ? 'system prompt' : field === 'tools' ? 'tool list' : field;
  if (actual === 'missing')
    return new ReplayInputMissingError({ requestSeq: entry.seq, what: `the ${what} ${expected}` });
  return new SpineError({
    code: 'REPLAY_MISMATCH',
    message: `request ${n} (request/header #${entry.seq}) cannot be rebuilt from the log: its ${what} does not match the record (expected ${expected ?? 'a value'}, found ${actual ?? 'none'})`,
  });
}

/**
 * The client that encodes each recorded request's wire body (no key, no network), by the seq of
 * its `request/header`: the provider and model the header names, else the session's model.
 */
async function encodersFor(config: SpineConfig, scan: LogScan): Promise<Map<number, ModelClient>> {
  const byName = new Map<string, ModelClient | undefined>();
  const bySeq = new Map<number, ModelClient>();
  for (const seq of scan.headerSeqs) {
    const name = scan.headerModels.get(seq) ?? scan.model ?? config.model;
    if (!byName.has(name)) byName.set(name, await encoderFor(config, name));
    const encoder = byName.get(name);
    if (encoder) bySeq.set(seq, encoder);
  }
  return bySeq;
}

/** A client of `name` (`provider/model`), only to encode wire bodies; the endpoint plays no part. */
async function encoderFor(config: SpineConfig, name: string): Promise<ModelClient | undefined> {
  try {
    const { baseUrl: _unused, ...rest } = config;
    const baseUrl = name.startsWith('openai-compatible/') ? 'http://127.0.0.1' : undefined;
    const model = await resolveModel({ ...rest, model: name, ...(baseUrl ? { baseUrl } : {}) });
    return model.client;
  } catch {
    return undefined;
  }
}
