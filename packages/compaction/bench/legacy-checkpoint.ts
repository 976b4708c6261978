// A copy of extractFacts and renderFacts as they were before issue 23 (commit f1c58f8), kept so
// bench/checkpoint-build.bench.ts measures today's implementation against them in the same run.
import type { SessionEvent, ToolResultBody, UserMessageBody } from '@spine/protocol';
import { clip, parseArguments, toolCallsOfEvent } from '../src/internal/render.js';

/** Kinds of fact the deterministic part of a checkpoint records. */
type CheckpointFactKind =
  | 'request'
  | 'constraint'
  | 'pinned'
  | 'file-read'
  | 'file-modified'
  | 'command'
  | 'error'
  | 'open-item'
  | 'note';

/** One fact of a checkpoint's deterministic part, with the event seqs it came from. */
interface CheckpointFact {
  /** What kind of fact. */
  kind: CheckpointFactKind;
  /** The fact, verbatim from the log where it quotes (requests, constraints, errors, paths). */
  text: string;
  /** Seqs of the events it came from. */
  seqs: number[];
}

/** Options of {@link extractFacts}. */
interface ExtractFactsOptions {
  /** True for an event whose content must be carried verbatim. */
  isPinned?: (event: SessionEvent) => boolean;
  /** Facts recorded by an earlier checkpoint inside the region. */
  priorFacts?: (checkpoint: SessionEvent) => readonly CheckpointFact[] | undefined;
}

const UNANSWERED = 'Latest request not yet answered: ';
const CONSTRAINT =
  /\b(never|always|must|mustn't|do not|don't|only|avoid|make sure|required?|forbidden|not allowed)\b/i;
const ERROR_LINE =
  /error|exception|failed|failure|fatal|cannot|can't|denied|not found|refused|E[A-Z]{3,}\b/i;
const WRITE_TOOL = /write|edit|patch|create|replace|apply|delete|remove|move|rename|mkdir|insert/i;
const SEARCH_TOOL = /^(grep|glob|list|ls|find|search|rg)\b/i;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target', 'paths', 'files'];
const CAPS: Partial<Record<CheckpointFactKind, number>> = {
  request: 40,
  constraint: 200,
  'file-read': 200,
  'file-modified': 200,
  command: 60,
  error: 80,
  'open-item': 30,
  note: 10,
};

interface PendingCall {
  name: string;
  args: Record<string, unknown>;
}
interface OpenError {
  target: string;
  fact: CheckpointFact;
  fixes: string[];
}

/** Extracts the deterministic facts of a region from its surface events, without a model. */
export function legacyExtractFacts(
  events: readonly SessionEvent[],
  options: ExtractFactsOptions = {},
): CheckpointFact[] {
  const facts: CheckpointFact[] = [];
  const index = new Map<string, CheckpointFact>();
  const add = (kind: CheckpointFactKind, text: string, seqs: readonly number[]): CheckpointFact => {
    const key = `${kind}\u0000${text}`;
    const existing = index.get(key);
    if (existing) {
      for (const seq of seqs) if (!existing.seqs.includes(seq)) existing.seqs.push(seq);
      if (existing.seqs.length > 20) existing.seqs.splice(0, existing.seqs.length - 20);
      facts.splice(facts.indexOf(existing), 1);
      facts.push(existing);
      return existing;
    }
    const fact: CheckpointFact = { kind, text, seqs: [...seqs] };
    index.set(key, fact);
    facts.push(fact);
    return fact;
  };
  const calls = new Map<string, PendingCall>();
  const openErrors: OpenError[] = [];
  let lastAssistantText: { text: string; seq: number } | undefined;
  let lastRequest: { text: string; seq: number; answered: boolean } | undefined;

  for (const event of events) {
    const pinned = options.isPinned?.(event) === true;
    if (event.type === 'user/message') {
      const body = event.body as UserMessageBody;
      if (body.source === 'compact-checkpoint') {
        const prior = options.priorFacts?.(event);
        // A carried "not yet answered" item is stale: this region decides what is still open.
        const carried = prior?.filter((fact) => !fact.text.startsWith(UNANSWERED));
        if (carried) for (const fact of carried) add(fact.kind, fact.text, fact.seqs);
        else
          add('note', `An earlier checkpoint (#${event.seq}): ${clip(body.content, 2000)}`, [
            event.seq,
          ]);
        continue;
      }
      if (pinned || body.pinned === true) {
        add('pinned', body.content, [event.seq]);
      } else if (body.source === 'user') {
        add('request', clip(body.content, 4000), [event.seq]);
      }
      if (body.source === 'user' || body.pinned === true) {
        for (const sentence of sentencesOf(body.content)) {
          if (CONSTRAINT.test(sentence)) add('constraint', sentence, [event.seq]);
        }
        lastRequest = { text: clip(body.content, 400), seq: event.seq, answered: false };
      }
    } else if (event.type === 'assistant/message') {
      for (const call of toolCallsOfEvent(event)) {
        calls.set(call.id, { name: call.name, args: parseArguments(call.arguments) });
      }
      const text = (event.body as { content: { type: string; text?: string }[] }).content
        .filter((part) => part.type === 'text')
        .map((part) => part.text ?? '')
        .join('')
        .trim();
      if (text.length > 0) {
        lastAssistantText = { text, seq: event.seq };
        if (lastRequest) lastRequest.answered = true;
      }
    } else if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      const call = calls.get(body.toolCallId) ?? { name: body.toolName, args: {} };
      if (pinned) add('pinned', `${body.toolName} result:\n${body.content}`, [event.seq]);
      const paths = pathsOf(call.args, body);
      const writes = WRITE_TOOL.test(call.name);
      const command = commandOf(call.args);
      const exitCode = exitCodeOf(body);
      const failed = body.isError || (exitCode !== undefined && exitCode !== 0);
      // Search tools take a directory to search, not a file they read.
      const searches = SEARCH_TOOL.test(call.name);
      if (!failed && !searches) {
        for (const path of paths) add(writes ? 'file-modified' : 'file-read', path, [event.seq]);
      }
      if (command !== undefined) {
        const status = exitCode !== undefined ? `exit ${exitCode}` : failed ? 'failed' : 'ok';
        add('command', `\`${command}\` → ${status}`, [event.seq]);
      }
      const target = command ?? paths[0] ?? call.name;
      if (failed) {
        const fact = add(
          'error',
          `${body.toolName} ${clip(target, 200)}: ${errorLinesOf(body.content)}`,
          [event.seq],
        );
        openErrors.push({ target, fact, fixes: [] });
      } else {
        for (const open of [...openErrors]) {
          if (writes) open.fixes.push(`modified ${paths.join(', ')} (#${event.seq})`);
          if (open.target === target) {
            const fixes = open.fixes.length > 0 ? `${open.fixes.slice(-3).join('; ')}; then ` : '';
            open.fact.text += ` — fixed: ${fixes}${body.toolName} ${clip(target, 200)} succeeded (#${event.seq})`;
            open.fact.seqs.push(event.seq);
            openErrors.splice(openErrors.indexOf(open), 1);
          }
        }
      }
    }
  }
  for (const open of openErrors) add('open-item', `Unresolved: ${open.fact.text}`, open.fact.seqs);
  if (lastRequest && !lastRequest.answered) {
    add('open-item', `${UNANSWERED}${lastRequest.text}`, [lastRequest.seq]);
  }
  if (lastAssistantText) {
    for (const line of lastAssistantText.text.split('\n')) {
      if (/^\s*(?:[-*]\s*\[ \]|TODO\b|next( step)?:)/i.test(line))
        add('open-item', line.trim(), [lastAssistantText.seq]);
    }
  }
  return capFacts(facts);
}

function capFacts(facts: CheckpointFact[]): CheckpointFact[] {
  const counts = new Map<CheckpointFactKind, number>();
  const kept: CheckpointFact[] = [];
  for (let index = facts.length - 1; index >= 0; index--) {
    const fact = facts[index] as CheckpointFact;
    const seen = counts.get(fact.kind) ?? 0;
    const cap = CAPS[fact.kind];
    if (cap !== undefined && seen >= cap) continue;
    counts.set(fact.kind, seen + 1);
    kept.push(fact);
  }
  return kept.reverse();
}

function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0 && sentence.length <= 1000);
}

function pathsOf(args: Record<string, unknown>, body: ToolResultBody): string[] {
  const paths = new Set<string>();
  const take = (value: unknown): void => {
    if (
      typeof value === 'string' &&
      value.length > 0 &&
      value.length < 400 &&
      !value.includes('\n')
    ) {
      paths.add(value);
    } else if (Array.isArray(value)) for (const item of value) take(item);
  };
  for (const key of PATH_KEYS) take(args[key]);
  take(body.meta?.sourcePath);
  return [...paths];
}

function commandOf(args: Record<string, unknown>): string | undefined {
  const value = args.command ?? args.cmd;
  if (typeof value === 'string') return clip(value, 500);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return clip(value.join(' '), 500);
  }
  return undefined;
}

function exitCodeOf(body: ToolResultBody): number | undefined {
  if (typeof body.meta?.exitCode === 'number') return body.meta.exitCode;
  const match = /exit(?:ed with)? code:?\s*(-?\d+)/i.exec(body.content);
  return match ? Number(match[1]) : undefined;
}

function errorLinesOf(content: string): string {
  const lines = content
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const matching = lines.filter((line) => ERROR_LINE.test(line)).slice(0, 2);
  const chosen = matching.length > 0 ? matching : lines.slice(0, 1);
  return chosen.map((line) => clip(line, 300)).join(' | ');
}

const HEADINGS: [CheckpointFactKind, string][] = [
  ['pinned', 'Pinned (verbatim)'],
  ['request', 'User requests (verbatim)'],
  ['constraint', 'Constraints stated by the user (verbatim)'],
  ['file-modified', 'Files modified'],
  ['file-read', 'Files read'],
  ['command', 'Commands run'],
  ['error', 'Errors seen and their fixes'],
  ['open-item', 'Open items'],
  ['note', 'Earlier checkpoints'],
];
const VERBATIM_KINDS: ReadonlySet<string> = new Set(['pinned', 'request', 'constraint']);

/**
 * Renders facts as the markdown record of a checkpoint. With `limit`, kinds other than pinned
 * content, requests and constraints show only their latest `limit` entries and say how many
 * earlier ones were left out (they stay in `compaction/summary` and in the log).
 */
export function legacyRenderFacts(
  facts: readonly CheckpointFact[],
  options: { limit?: number } = {},
): string {
  const sections: string[] = [];
  for (const [kind, heading] of HEADINGS) {
    let selected = facts.filter((fact) => fact.kind === kind);
    let omitted = 0;
    if (
      options.limit !== undefined &&
      !VERBATIM_KINDS.has(kind) &&
      selected.length > options.limit
    ) {
      omitted = selected.length - options.limit;
      selected = selected.slice(omitted);
    }
    const lines = selected.map((fact) => `- ${fact.text} ${seqRefs(fact.seqs)}`);
    if (omitted > 0)
      lines.unshift(`- (${omitted} earlier entries left out; recall_history finds them)`);
    if (lines.length > 0) sections.push(`### ${heading}\n${lines.join('\n')}`);
  }
  return sections.length > 0 ? sections.join('\n\n') : '(no facts recorded)';
}

function seqRefs(seqs: readonly number[]): string {
  const shown = seqs.length > 6 ? [...seqs.slice(0, 2), ...seqs.slice(-4)] : seqs;
  return `(${shown.map((seq) => `#${seq}`).join(', ')}${seqs.length > 6 ? ', …' : ''})`;
}
