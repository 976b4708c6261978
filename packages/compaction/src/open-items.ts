// Open-item statements in model text ("next step: …", "- [ ] …", "I still need to …") and the
// evidence that resolves one later: the model saying it is done, or the command or file it names
// succeeding.
import { sentencesOf } from './constraints.js';

// A line that announces an open item by its form: an unchecked box, a "next step:" style label.
const LABELLED =
  /^(?:[-*]\s*\[ \]\s+\S|(?:[-*]\s+)?(?:\*\*)?(?:next steps?|next up|next|to ?do|fixme|remaining|still to do|still open|left to do|what's left|follow[- ]ups?|open items?|open|pending|outstanding|unresolved|later)(?:\*\*)?\s*[:–—-]\s*\S|(?:[-*]\s+)?(?:TODO|FIXME)\b)/i;
// A sentence that states work not yet done.
const STATED =
  /\b(?:still (?:need|needs|have|has|got) to|(?:I|we) (?:also |still )?(?:need|have|ought) to|(?:next|then|after that|afterwards|later(?: on)?|once [^,.]{1,80}),? (?:I|we)(?:'ll| will| should| can| must)|(?:I|we)(?:'ll| will| should) (?:\w+ ){0,8}?(?:next|later|afterwards|after that|once|in a follow-up)\b|(?:is|are) (?:still )?(?:left to do|pending|outstanding|not done yet|unfinished)|(?:haven't|have not|hasn't|has not|didn't|did not) (?:\w+ ){0,5}?yet\b|remains? to be|\bnext (?:step|thing) (?:is|will be|would be) to|[;,–—]\s*(?:next steps?|next up|todo|remaining|still open|still to do|left to do|follow[- ]ups?)\s*:)/i;
// A statement that something is finished.
const DONE =
  /\b(?:done|finished|completed?|fixed|resolved|implemented|wired|added|in place|works now|now works|passes now|now passes|now pass|taken care of|addressed|handled)\b|✅|^[-*]\s*\[x\]/i;
const STOP_WORDS = new Set(
  'the this that then with into from have need next step will still also after before once later and for are was were been being when what which their there them they your our its not yet just some more other should must can all any each here done now too but has had did does via per let out off one two get got put see try own way use'.split(
    ' ',
  ),
);

/** The open-item statements of one model text, verbatim (trimmed), in order. */
export function openItemsOf(text: string): string[] {
  const items: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.length === 0) continue;
    if (LABELLED.test(trimmed)) {
      if (trimmed.length <= 1000 && !items.includes(trimmed)) items.push(trimmed);
      continue;
    }
    for (const sentence of sentencesOf(trimmed)) {
      if (STATED.test(sentence) && !items.includes(sentence)) items.push(sentence);
    }
  }
  return items;
}

/** What an open item names: backticked spans, paths and called identifiers. */
export function subjectsOf(text: string): string[] {
  const subjects = new Set<string>();
  for (const match of text.matchAll(/`([^`\n]{2,200})`/g))
    subjects.add((match[1] as string).trim());
  for (const match of text.matchAll(
    /(?:^|[\s(])((?:[\w@.-]+\/)*[\w@-]+\.[A-Za-z]{1,6})(?=$|[\s),:;]|\.(?:\s|$))/g,
  ))
    subjects.add(match[1] as string);
  for (const match of text.matchAll(/\b([A-Za-z_$][\w$.]*\(\))/g)) subjects.add(match[1] as string);
  return [...subjects];
}

/** Content words of a statement (lower case, three letters or more, no stop words), stemmed. */
function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9_]{2,}/g) ?? []) {
    if (!STOP_WORDS.has(word)) words.add(stem(word));
  }
  return words;
}

/** A crude English stem, enough to match "bump" with "bumped" and "migrate" with "migration". */
function stem(word: string): string {
  const bare = word.replace(/(?:ations?|ings?|ions?|ed|es|s|e)$/, '');
  if (bare.length < 3) return word;
  return /([b-df-hj-np-tv-z])\1$/.test(bare) ? bare.slice(0, -1) : bare;
}

/** An open item being tracked, with what would resolve it. */
export interface TrackedItem {
  text: string;
  subjects: string[];
  words: Set<string>;
  /** Tokens that tell this item from similar ones (with digits or `_`): a report must name them all. */
  keys: string[];
}

/** Prepares an open item for {@link saysDone}. */
export function trackItem(text: string): TrackedItem {
  const body = text.replace(LABEL_PREFIX, '');
  const keys = [...new Set(body.match(/[A-Za-z_$]*(?:\d|_)[\w$]*/g) ?? [])].filter(
    (key) => key.length >= 2 || /\d/.test(key),
  );
  return { text, subjects: subjectsOf(text), words: wordsOf(body), keys };
}

const LABEL_PREFIX =
  /^(?:[-*]\s*\[ \]\s*|(?:[-*]\s+)?(?:\*\*)?(?:next steps?|next up|next|to ?do|fixme|remaining|still to do|still open|left to do|what's left|follow[- ]ups?|open items?|open|pending|outstanding|unresolved|later)(?:\*\*)?\s*[:–—-]\s*|(?:[-*]\s+)?(?:TODO|FIXME)\b:?\s*)/i;

/** The sentences of model text that say something is finished (input of {@link saysDone}). */
export function doneSentencesOf(text: string): string[] {
  if (!DONE_ANYWHERE.test(text)) return [];
  return sentencesOf(text).filter((sentence) => DONE.test(sentence));
}

const DONE_ANYWHERE = new RegExp(DONE.source, 'im');

/**
 * The sentence among `doneSentences` (from {@link doneSentencesOf}) that reports `item` done, if
 * any: one that names the same subject (a backticked command, a path or a `function()`) or
 * shares at least two thirds (and at least two) of the item's content words and contains every
 * distinguishing token of it (a number, an identifier with `_`).
 */
export function saysDone(item: TrackedItem, doneSentences: readonly string[]): string | undefined {
  for (const sentence of doneSentences) {
    if (item.subjects.some((subject) => sentence.includes(subject))) return sentence;
    if (item.words.size === 0) continue;
    if (!item.keys.every((key) => sentence.includes(key))) continue;
    const words = wordsOf(sentence);
    let shared = 0;
    for (const word of item.words) if (words.has(word)) shared++;
    if (shared >= 2 && shared * 3 >= item.words.size * 2) return sentence;
  }
  return undefined;
}
