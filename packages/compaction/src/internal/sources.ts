// What building a checkpoint reads besides the surface: the facts of the checkpoints on it (in
// `compaction/summary` / `compaction/candidate` events), the whole output of tool results cut
// to fit (in `tool/output` events), and the system prompt and tools in force when a region was
// sent. None of those events is on the surface, so a lazily opened session does not hold them;
// this fold keeps exactly what the surface still refers to, in the session's snapshots.
import type {
  ImagePart,
  JsonValue,
  RequestHeaderBody,
  SessionEvent,
  SessionLog,
  ToolSpec,
} from '@spine/protocol';
import type { CheckpointFact } from '../checkpoint-facts.js';

/** An image a compaction folded, with the seq of the event that carried it. */
export type FoldedImage = { seq: number; image: ImagePart };

/** The prompt a run of requests was sent with, from the first header of the run on. */
type Epoch = { seq: number; systemHash: string; toolsHash: string };

/** State of {@link sourcesFold}. */
export type SourcesState = {
  /** The surface seqs, in surface order (to drop what leaves it). */
  surface: number[];
  /** Facts of the checkpoint events on the surface, by seq. */
  facts: Record<string, CheckpointFact[]>;
  /** Whole outputs of the cut tool results on the surface, by the result's seq. */
  outputs: Record<string, string>;
  /** Images folded by the checkpoint events on the surface (their summaries' `foldedImages`), by seq. */
  images: Record<string, FoldedImage[]>;
  /** `foldedImages` of the newest summary, by seq, until a checkpoint names it. */
  pendingImages: Record<string, FoldedImage[]>;
  /** Facts of the newest summary and candidate, by seq, until a checkpoint names them. */
  pendingFacts: Record<string, { type: string; facts: CheckpointFact[] | null }>;
  /** Whole outputs (`tool/output`) of the current step, by seq, until a result names them. */
  pendingOutputs: Record<string, string>;
  /** Runs of requests with the same system prompt and tools, oldest first. */
  epochs: Epoch[];
  /** System prompt texts and tool lists by hash, with the first seq they were stored at. */
  systems: Record<string, { seq: number; text: string }>;
  tools: Record<string, { seq: number; tools: ToolSpec[] }>;
};

function dropSurface(state: SourcesState, seqs: readonly number[]): void {
  for (const seq of seqs) {
    delete state.facts[seq];
    delete state.outputs[seq];
    delete state.images[seq];
  }
  // Requests before the surface's oldest event are no longer asked about: keep the run in
  // force at that event and the later ones.
  let oldest = Number.POSITIVE_INFINITY;
  for (const seq of state.surface) if (seq !== 1 && seq < oldest) oldest = seq;
  let keepFrom = 0;
  for (let i = 0; i < state.epochs.length; i++) {
    if ((state.epochs[i] as Epoch).seq <= oldest) keepFrom = i;
  }
  if (keepFrom > 0) state.epochs = state.epochs.slice(keepFrom);
  // The texts stay: a prompt used again later is not stored again (few, one per prompt).
}

/** Keeps the facts and outputs that surface events refer to, and the prompts requests used. */
export const sourcesFold = {
  name: 'compaction/sources',
  // 2: the images earlier checkpoints folded (a snapshot holding version 1 is refolded).
  version: 2,
  initial: (): SourcesState => ({
    surface: [],
    facts: {},
    outputs: {},
    images: {},
    pendingImages: {},
    pendingFacts: {},
    pendingOutputs: {},
    epochs: [],
    systems: {},
    tools: {},
  }),
  apply(state: SourcesState, event: SessionEvent): SourcesState {
    const body = event.body as Record<string, unknown> | undefined;
    switch (event.type) {
      case 'compaction/summary':
      case 'compaction/candidate': {
        // Only the newest of each kind can still be named by a checkpoint.
        for (const [seq, pending] of Object.entries(state.pendingFacts)) {
          if (pending.type === event.type) delete state.pendingFacts[seq];
        }
        const facts = body?.facts;
        state.pendingFacts[event.seq] = {
          type: event.type,
          facts: Array.isArray(facts) ? (facts as CheckpointFact[]) : null,
        };
        if (event.type === 'compaction/summary') {
          state.pendingImages = {};
          if (Array.isArray(body?.foldedImages) && body.foldedImages.length > 0)
            state.pendingImages[event.seq] = body.foldedImages as FoldedImage[];
        }
        break;
      }
      case 'tool/output':
        if (typeof body?.content === 'string') state.pendingOutputs[event.seq] = body.content;
        break;
      case 'step/start':
      case 'turn/end':
        // Most steps cut no output: keep the empty object rather than make a new one per step.
        for (const _seq in state.pendingOutputs) {
          state.pendingOutputs = {};
          break;
        }
        break;
      case 'prompt/system':
        // The first seq a text was stored at: "stored at or before a seq" is then one compare.
        if (typeof body?.hash === 'string' && typeof body.text === 'string') {
          state.systems[body.hash] ??= { seq: event.seq, text: body.text };
        }
        break;
      case 'tools/defined':
        if (typeof body?.hash === 'string' && Array.isArray(body.tools)) {
          state.tools[body.hash] ??= { seq: event.seq, tools: body.tools as ToolSpec[] };
        }
        break;
      case 'request/header': {
        const header = body as unknown as RequestHeaderBody | undefined;
        if (typeof header?.systemHash !== 'string' || typeof header.toolsHash !== 'string') break;
        const last = state.epochs[state.epochs.length - 1];
        if (last?.systemHash !== header.systemHash || last.toolsHash !== header.toolsHash) {
          state.epochs.push({
            seq: event.seq,
            systemHash: header.systemHash,
            toolsHash: header.toolsHash,
          });
        }
        break;
      }
    }
    const op = event.surfaceOp;
    if (!op) return state;
    const sources = event.sourceEventSeqs;
    if (sources) {
      for (let i = 0; i < sources.length && i < 3; i++) {
        const facts = state.pendingFacts[sources[i] as number]?.facts;
        if (facts) {
          state.facts[event.seq] = facts;
          break;
        }
      }
      for (let i = 0; i < sources.length && i < 3; i++) {
        const images = state.pendingImages[sources[i] as number];
        if (images) {
          state.images[event.seq] = images;
          break;
        }
      }
    }
    const originalSeq = (body?.meta as { originalSeq?: unknown } | undefined)?.originalSeq;
    if (typeof originalSeq === 'number' && state.pendingOutputs[originalSeq] !== undefined) {
      state.outputs[event.seq] = state.pendingOutputs[originalSeq] as string;
    }
    if (op.op === 'append') state.surface.push(event.seq);
    else {
      const start = state.surface.indexOf(op.start);
      const end = start < 0 ? -1 : state.surface.indexOf(op.end, start);
      if (start >= 0 && end >= 0) {
        const removed = state.surface.splice(start, end - start + 1, event.seq);
        dropSurface(state, removed);
      }
    }
    return state;
  },
};

/** The sources state of `session` when it registered the fold, else undefined. */
export function registeredSources(session: SessionLog): SourcesState | undefined {
  if (typeof session.projection !== 'function') return undefined;
  try {
    return session.projection<SourcesState & JsonValue>(sourcesFold.name);
  } catch {
    return undefined; // not registered: read the events themselves
  }
}

/**
 * The system prompt and tools of the last request sent at or before `seq`, as the log stored
 * them; undefined where the log has none (no request yet, or a text it never stored).
 */
export function promptAt(
  state: SourcesState,
  seq: number,
): { header: boolean; system?: string; tools?: ToolSpec[] } {
  let epoch: Epoch | undefined;
  for (const candidate of state.epochs) {
    if (candidate.seq > seq) break;
    epoch = candidate;
  }
  if (!epoch) return { header: false };
  const system = state.systems[epoch.systemHash];
  const tools = state.tools[epoch.toolsHash];
  return {
    header: true,
    ...(system && system.seq <= seq ? { system: system.text } : {}),
    ...(tools && tools.seq <= seq ? { tools: tools.tools } : {}),
  };
}
