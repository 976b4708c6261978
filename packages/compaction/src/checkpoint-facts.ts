import type { SessionEvent, ToolResultBody, UserMessageBody } from '@spine/protocol';
import { constraintsOf } from './constraints.js';
import { pickErrorLines } from './error-lines.js';
import { clip, parseArguments, toolCallsOfEvent } from './internal/render.js';
import {
  doneSentencesOf,
  openItemsOf,
  saysDone,
  type TrackedItem,
  trackItem,
} from './open-items.js';

/** Kinds of fact the deterministic part of a checkpoint records. */
export type CheckpointFactKind =
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
export interface CheckpointFact {
  /** What kind of fact. */
  kind: CheckpointFactKind;
  /** The fact, verbatim from the log where it quotes (requests, constraints, errors, paths). */
  text: string;
  /** Seqs of the events it came from. */
  seqs: number[];
  /**
   * Errors and open items: what resolves the fact when it later succeeds, `command <cmd>`,
   * `tool <name> <target>` or, for open items, what it names (commands, paths, `function()`).
   */
  subjects?: string[];
  /** Errors and open items: the seq of the event that fixed or resolved it. */
  resolvedAt?: number;
  /** Errors and open items: how it was resolved, in words, quoting the evidence. */
  resolution?: string;
}

/** Options of {@link extractFacts}. */
export interface ExtractFactsOptions {
  /** True for an event whose content must be carried verbatim. */
  isPinned?: (event: SessionEvent) => boolean;
  /** Facts recorded by an earlier checkpoint inside the region. */
  priorFacts?: (checkpoint: SessionEvent) => readonly CheckpointFact[] | undefined;
  /** Most UTF-8 bytes of error lines kept per failing command (default 1000). */
  errorBytes?: number;
  /**
   * The whole output of a `tool/result` that was cut to fit the window (`meta.originalSeq`), so
   * that error lines the cut left out are still found.
   */
  originalOutput?: (result: SessionEvent) => string | undefined;
}

const UNANSWERED = 'Latest request not yet answered: ';
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
  'open-item': 40,
  note: 10,
};

interface PendingCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * Extracts the deterministic facts of a region from its surface events, without a model.
 * Errors and open items are tracked over the whole region, including those carried from earlier
 * checkpoints in it, and marked resolved (with the seq and the evidence) by later events: the
 * same command exiting 0, a broader run of it passing after a file changed, the same tool
 * succeeding on the same target, the model reporting the item done, or the command or file an
 * open item names succeeding.
 */
export function extractFacts(
  events: readonly SessionEvent[],
  options: ExtractFactsOptions = {},
): CheckpointFact[] {
  const facts: CheckpointFact[] = [];
  const index = new Map<string, CheckpointFact>();
  const add = (
    kind: CheckpointFactKind,
    text: string,
    seqs: readonly number[],
    extra: Partial<CheckpointFact> = {},
  ): CheckpointFact => {
    const key = `${kind}\u0000${text}`;
    const existing = index.get(key);
    if (existing) {
      for (const seq of seqs) if (!existing.seqs.includes(seq)) existing.seqs.push(seq);
      if (existing.seqs.length > 20) existing.seqs.splice(0, existing.seqs.length - 20);
      Object.assign(existing, extra);
      facts.splice(facts.indexOf(existing), 1);
      facts.push(existing);
      return existing;
    }
    const fact: CheckpointFact = { kind, text, seqs: [...seqs], ...extra };
    index.set(key, fact);
    facts.push(fact);
    return fact;
  };
  const calls = new Map<string, PendingCall>();
  // Open errors by the subject that fixes them, with the count of file changes when they failed.
  const openErrors = new Map<string, Set<CheckpointFact>>();
  const changeMarks = new Map<CheckpointFact, number>();
  const changes: string[] = [];
  // Open items, and by each subject they name.
  const openItems = new Map<CheckpointFact, TrackedItem>();
  const itemsBySubject = new Map<string, Set<CheckpointFact>>();
  let lastRequest: { text: string; seq: number; answered: boolean } | undefined;

  const resolve = (fact: CheckpointFact, seq: number, resolution: string): void => {
    fact.resolvedAt = seq;
    fact.resolution = resolution;
    if (!fact.seqs.includes(seq)) fact.seqs.push(seq);
    if (fact.kind === 'error') {
      openErrors.get(fact.subjects?.[0] ?? '')?.delete(fact);
      changeMarks.delete(fact);
    }
    const item = openItems.get(fact);
    if (item) {
      openItems.delete(fact);
      for (const subject of item.subjects) itemsBySubject.get(subject)?.delete(fact);
    }
  };
  const track = (fact: CheckpointFact): void => {
    if (fact.resolvedAt !== undefined) return;
    const subject = fact.subjects?.[0];
    if (fact.kind === 'error' && subject !== undefined) {
      setOf(openErrors, subject).add(fact);
      if (!changeMarks.has(fact)) changeMarks.set(fact, changes.length);
    }
    if (fact.kind === 'open-item' && !openItems.has(fact)) {
      const item = trackItem(fact.text);
      openItems.set(fact, item);
      for (const name of item.subjects) setOf(itemsBySubject, name).add(fact);
    }
  };

  for (const event of events) {
    const pinned = options.isPinned?.(event) === true;
    if (event.type === 'user/message') {
      const body = event.body as UserMessageBody;
      if (body.source === 'compact-checkpoint') {
        const prior = options.priorFacts?.(event);
        // A carried "not yet answered" item is stale: this region decides what is still open.
        const carried = prior
          ?.filter((fact) => !fact.text.startsWith(UNANSWERED))
          .flatMap(upgradeCarried);
        if (carried) {
          for (const fact of carried) track(add(fact.kind, fact.text, fact.seqs, copyState(fact)));
        } else
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
        for (const sentence of constraintsOf(body.content)) {
          add('constraint', sentence, [event.seq]);
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
      if (text.length === 0) continue;
      if (lastRequest) lastRequest.answered = true;
      const doneSentences = openItems.size > 0 ? doneSentencesOf(text) : [];
      for (const [fact, item] of doneSentences.length > 0 ? openItems : []) {
        const said = saysDone(item, doneSentences);
        if (said !== undefined) resolve(fact, event.seq, `the model said: "${clip(said, 300)}"`);
      }
      for (const statement of openItemsOf(text)) {
        const fact = add('open-item', statement, [event.seq]);
        if (fact.resolvedAt === undefined) track(fact);
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
      const status = exitCode !== undefined ? `exit ${exitCode}` : failed ? 'failed' : 'ok';
      if (command !== undefined) add('command', `\`${command}\` → ${status}`, [event.seq]);
      const subject =
        command !== undefined
          ? `command ${command}`
          : `tool ${call.name} ${clip(paths[0] ?? '', 200)}`;
      if (failed) {
        const picked = pickErrorLines(
          options.originalOutput?.(event) ?? body.content,
          options.errorBytes !== undefined ? { maxBytes: options.errorBytes } : {},
        );
        const label =
          command !== undefined
            ? `\`${command}\` (${status})`
            : `${body.toolName}${paths[0] ? ` ${clip(paths[0], 200)}` : ''} (${status})`;
        const lines = picked.lines.length > 0 ? picked.lines.join(' | ') : '(no output)';
        const fact = add('error', `${label}: ${lines}`, [event.seq], { subjects: [subject] });
        delete fact.resolvedAt;
        delete fact.resolution;
        changeMarks.set(fact, changes.length);
        track(fact);
        continue;
      }
      if (writes && paths.length > 0) changes.push(`${paths.join(', ')} (#${event.seq})`);
      const fixes: [CheckpointFact, string][] = [];
      for (const fact of openErrors.get(subject) ?? []) {
        const since = changes.slice(changeMarks.get(fact) ?? changes.length).slice(-3);
        const edits = since.length > 0 ? `modified ${since.join('; ')}; then ` : '';
        fixes.push([
          fact,
          `${edits}${command !== undefined ? `\`${command}\` → exit 0` : `${call.name} succeeded`}`,
        ]);
      }
      // A broader run of the same command (`npm test` after `npm test -- src/db.test.ts` failed)
      // passing after a file changed fixes it too.
      if (command !== undefined && changes.length > 0) {
        for (const [failedSubject, facts] of openErrors) {
          if (!failedSubject.startsWith(`command ${command} `)) continue;
          for (const fact of facts) {
            const since = changes.slice(changeMarks.get(fact) ?? changes.length).slice(-3);
            if (since.length > 0)
              fixes.push([fact, `modified ${since.join('; ')}; then \`${command}\` → exit 0`]);
          }
        }
      }
      for (const [fact, how] of fixes) resolve(fact, event.seq, `${how} (#${event.seq})`);
      const named = [...(command !== undefined ? [command] : []), ...(writes ? paths : [])];
      for (const name of named) {
        for (const fact of [...(itemsBySubject.get(name) ?? [])]) {
          const what = name === command ? `\`${command}\` → ${status}` : `modified ${name}`;
          resolve(fact, event.seq, `${what} (#${event.seq})`);
        }
      }
    }
  }
  if (lastRequest && !lastRequest.answered) {
    add('open-item', `${UNANSWERED}${lastRequest.text}`, [lastRequest.seq]);
  }
  return capFacts(facts);
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

/**
 * Reads a fact recorded before errors carried their resolution in fields: an error whose text
 * ends in " — fixed: …" is a fixed error, and an "Unresolved: …" open item repeated an error.
 */
function upgradeCarried(fact: CheckpointFact): CheckpointFact[] {
  if (fact.kind === 'open-item' && fact.text.startsWith('Unresolved: ')) return [];
  const marker = fact.text.indexOf(' — fixed: ');
  if (fact.kind !== 'error' || fact.resolvedAt !== undefined || marker < 0) return [fact];
  return [
    {
      ...fact,
      text: fact.text.slice(0, marker),
      resolvedAt: fact.seqs[fact.seqs.length - 1] as number,
      resolution: fact.text.slice(marker + ' — fixed: '.length),
    },
  ];
}

function copyState(fact: CheckpointFact): Partial<CheckpointFact> {
  return {
    ...(fact.subjects ? { subjects: [...fact.subjects] } : {}),
    ...(fact.resolvedAt !== undefined ? { resolvedAt: fact.resolvedAt } : {}),
    ...(fact.resolution !== undefined ? { resolution: fact.resolution } : {}),
  };
}

/** Keeps the latest facts of each kind up to its cap; unresolved ones before resolved ones. */
function capFacts(facts: CheckpointFact[]): CheckpointFact[] {
  const counts = new Map<string, number>();
  const keep = new Set<CheckpointFact>();
  for (const pass of [false, true]) {
    for (let index = facts.length - 1; index >= 0; index--) {
      const fact = facts[index] as CheckpointFact;
      if ((fact.resolvedAt !== undefined) !== pass) continue;
      const seen = counts.get(fact.kind) ?? 0;
      const cap = CAPS[fact.kind];
      if (cap !== undefined && seen >= cap) continue;
      counts.set(fact.kind, seen + 1);
      keep.add(fact);
    }
  }
  return facts.filter((fact) => keep.has(fact));
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
  if (typeof value === 'string') return clip(value.trim(), 500);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return clip(value.join(' '), 500);
  }
  return undefined;
}

function exitCodeOf(body: ToolResultBody): number | undefined {
  if (typeof body.meta?.exitCode === 'number') return body.meta.exitCode;
  const match = /\[exit code (-?\d+)\]|exit(?:ed with)? code:?\s*(-?\d+)/i.exec(body.content);
  return match ? Number(match[1] ?? match[2]) : undefined;
}
