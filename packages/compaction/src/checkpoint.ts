import type { SessionEvent, SessionLog } from '@spine/protocol';
import { type CheckpointFact, type CheckpointFactKind, extractFacts } from './checkpoint-facts.js';
import { CompactionFailedError } from './errors.js';
import { registeredSources } from './internal/sources.js';
import { type SurfaceRegion, validateSurfaceRegion } from './region.js';

/** The model-free part of a checkpoint. */
export interface DeterministicCheckpoint {
  /** The rendered record (markdown, without the `<compacted-summary>` frame). */
  text: string;
  /** The facts it renders, each with the seqs it came from. */
  facts: CheckpointFact[];
  /** Seqs of the surface events the region covers, in order. */
  coveredSeqs: number[];
}

/** Options of {@link buildDeterministicCheckpoint}. */
export interface DeterministicCheckpointOptions {
  /** True for an event whose content must be carried verbatim (besides `pinned: true` bodies). */
  isPinned?: (event: SessionEvent) => boolean;
}

type Section = { heading: string; kind: CheckpointFactKind; resolved?: boolean };
const SECTIONS: Section[] = [
  { kind: 'pinned', heading: 'Pinned (verbatim)' },
  { kind: 'request', heading: 'User requests (verbatim)' },
  { kind: 'constraint', heading: 'Constraints stated by the user (verbatim)' },
  { kind: 'file-modified', heading: 'Files modified' },
  { kind: 'file-read', heading: 'Files read' },
  { kind: 'command', heading: 'Commands run' },
  { kind: 'error', heading: 'Errors not yet fixed', resolved: false },
  { kind: 'error', heading: 'Errors fixed', resolved: true },
  { kind: 'open-item', heading: 'Open items', resolved: false },
  { kind: 'open-item', heading: 'Open items resolved', resolved: true },
  { kind: 'note', heading: 'Earlier checkpoints' },
];

/** The surface events of a session, in surface order. */
export function surfaceEventsOf(session: SessionLog): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const seq of session.surface()) {
    const event = session.get(seq);
    if (event) events.push(event);
  }
  return events;
}

/** The facts an earlier checkpoint recorded in its `compaction/summary` (or candidate) event. */
export function priorFactsOf(
  session: SessionLog,
  checkpoint: SessionEvent,
): CheckpointFact[] | undefined {
  // A session with the sources projection answers for summaries it no longer holds (lazy).
  const sources = registeredSources(session);
  if (sources) return sources.facts[checkpoint.seq];
  for (const seq of checkpoint.sourceEventSeqs?.slice(0, 3) ?? []) {
    const source = session.get(seq);
    if (source?.type === 'compaction/summary' || source?.type === 'compaction/candidate') {
      const facts = (source.body as { facts?: CheckpointFact[] }).facts;
      if (Array.isArray(facts)) return facts;
    }
  }
  return undefined;
}

/**
 * Builds the deterministic part of a checkpoint for a surface region from the log alone: user
 * requests and constraints verbatim, files read and modified, commands with exit codes, errors
 * and their fixes, open items, pinned content, each with the seqs it came from. Facts of earlier
 * checkpoints inside the region are carried forward.
 *
 * @throws a {@link CompactionFailedError} when the region is not a valid surface region.
 * @example
 * ```ts
 * const { text, facts } = buildDeterministicCheckpoint(session, { start: 2, end: 80 });
 * ```
 */
export function buildDeterministicCheckpoint(
  session: SessionLog,
  region: SurfaceRegion,
  options: DeterministicCheckpointOptions = {},
): DeterministicCheckpoint {
  const surface = surfaceEventsOf(session);
  const check = validateSurfaceRegion(surface, region);
  if (!check.ok) throw new CompactionFailedError({ stage: 'select', detail: check.reason });
  const events = surface.slice(check.startIndex, check.endIndex + 1);
  const facts = extractFacts(events, {
    ...(options.isPinned ? { isPinned: options.isPinned } : {}),
    priorFacts: (checkpoint) => priorFactsOf(session, checkpoint),
    originalOutput: (result) => originalOutputOf(session, result),
  });
  return { text: renderFacts(facts), facts, coveredSeqs: events.map((event) => event.seq) };
}

/** The whole output of a tool result that was cut to fit the window (its `tool/output` event). */
function originalOutputOf(session: SessionLog, result: SessionEvent): string | undefined {
  const seq = (result.body as { meta?: { originalSeq?: unknown } }).meta?.originalSeq;
  if (typeof seq !== 'number') return undefined;
  const sources = registeredSources(session);
  if (sources) return sources.outputs[result.seq];
  const original = session.get(seq);
  const content = (original?.body as { content?: unknown } | undefined)?.content;
  return original?.type === 'tool/output' && typeof content === 'string' ? content : undefined;
}

/** Fact kinds always rendered in full: they are quoted and cannot be looked up by path. */
const VERBATIM_KINDS: ReadonlySet<string> = new Set(['pinned', 'request', 'constraint']);

/**
 * Fact kinds limited only as the last resort (`limitOpen`), like unfixed errors and open items:
 * the files modified are the state the work left behind, each a short line, and a limited list
 * drops the earliest ones first, which are those carried from earlier checkpoints.
 */
const LAST_RESORT_KINDS: ReadonlySet<string> = new Set(['file-modified']);

/**
 * Renders facts as the markdown record of a checkpoint. With `limit`, sections other than pinned
 * content, requests, constraints, files modified, unfixed errors and open items show only their
 * latest `limit` entries and say how many earlier ones were left out (they stay in
 * `compaction/summary` and in the log); with `limitOpen` too, files modified, unfixed errors and
 * open items are limited as well (the last resort when nothing else fits).
 */
export function renderFacts(
  facts: readonly CheckpointFact[],
  options: { limit?: number; limitOpen?: boolean } = {},
): string {
  const sections: string[] = [];
  for (const section of SECTIONS) {
    let selected = facts.filter(
      (fact) =>
        fact.kind === section.kind &&
        (section.resolved === undefined || (fact.resolvedAt !== undefined) === section.resolved),
    );
    let omitted = 0;
    const lastResort = section.resolved === false || LAST_RESORT_KINDS.has(section.kind);
    const limited =
      !VERBATIM_KINDS.has(section.kind) && (!lastResort || options.limitOpen === true);
    if (options.limit !== undefined && limited && selected.length > options.limit) {
      omitted = selected.length - options.limit;
      selected = selected.slice(omitted);
    }
    const lines = selected.map((fact) => {
      const done =
        fact.resolvedAt !== undefined
          ? ` — ${fact.kind === 'error' ? 'fixed' : 'resolved'}: ${fact.resolution ?? `#${fact.resolvedAt}`}`
          : '';
      return `- ${fact.text} ${seqRefs(fact.seqs)}${done}`;
    });
    if (omitted > 0)
      lines.unshift(`- (${omitted} earlier entries left out; recall_history finds them)`);
    if (lines.length > 0) sections.push(`### ${section.heading}\n${lines.join('\n')}`);
  }
  return sections.length > 0 ? sections.join('\n\n') : '(no facts recorded)';
}

function seqRefs(seqs: readonly number[]): string {
  const shown = seqs.length > 6 ? [...seqs.slice(0, 2), ...seqs.slice(-4)] : seqs;
  return `(${shown.map((seq) => `#${seq}`).join(', ')}${seqs.length > 6 ? ', …' : ''})`;
}

/** What `frameCheckpoint` (in `@spine/compaction/internal`) puts together. */
export interface CheckpointParts {
  /** The compaction id (seq of its `compaction/start`). */
  compactionId: number;
  /** The region replaced. */
  region: SurfaceRegion;
  /** The deterministic record. */
  record: string;
  /** The LLM summary, when the summariser succeeded. */
  summary?: string;
  /** Why the summariser failed, when it did. */
  summarizerError?: string;
}

/** Frames a checkpoint in `<compacted-summary>`: the deterministic record, then the LLM summary. */
export function frameCheckpoint(parts: CheckpointParts): string {
  const { compactionId, region } = parts;
  const summary =
    parts.summary !== undefined && parts.summary.trim().length > 0
      ? parts.summary.trim()
      : `(No model summary: ${parts.summarizerError ?? 'the summariser was not used'}. The record above is complete for what it lists.)`;
  return [
    `<compacted-summary id="${compactionId}" covers="${region.start}-${region.end}">`,
    `Earlier conversation (log seqs ${region.start}–${region.end}) was compacted into this checkpoint. (#N) marks the event seq a fact came from. To read the original events call recall_history, e.g. {"seq": N}, {"path": "src/file.ts"} or {"compactionId": ${compactionId}}.`,
    '',
    '## Record (built from the log, verbatim)',
    parts.record,
    '',
    '## Summary',
    summary,
    '</compacted-summary>',
  ].join('\n');
}
