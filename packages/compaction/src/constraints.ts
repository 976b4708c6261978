// Which sentences of a user's message restrict or condition future work. The rule reads the
// sentence's meaning through the shapes such statements take in English, not through a list of
// trigger words: a prohibition or negation, a condition on when or whether to act, a required
// setting or state, or a preference between alternatives. A plain task ("Fix the parser.") or a
// question is none of these.

/** Which of the four shapes a constraint sentence takes. */
export type ConstraintShape = 'prohibition' | 'condition' | 'requirement' | 'preference';

const SHAPES: readonly [ConstraintShape, RegExp][] = [
  [
    'prohibition',
    /\b(?:never|not|no|don't|do not|doesn't|does not|mustn't|shouldn't|can't|cannot|won't|nothing|nobody|none|nor|avoid|without|refrain|stop|skip|leave (?:\S+ ){0,4}(?:alone|as it is|as is|untouched)|off[- ]limits|forbidden|prohibited|excluded?)\b/i,
  ],
  [
    'condition',
    /\b(?:if|unless|when(?:ever)?|only|as long as|provided(?: that)?|before|after|until|till|in case|otherwise|except|while|once|whether|as soon as)\b/i,
  ],
  [
    'requirement',
    /\b(?:must|needs?|needed|require[sd]?|required|has to|have to|got to|should|ought|make sure|ensure|keep|stay|stays|remain|always|at (?:least|most)|no more than|exactly|set to|is set|are set|be set|pinned|pin|stick|limit(?:ed)?|max(?:imum)?|min(?:imum)?|mandatory|expected to|supposed to|go(?:es)? (?:through|via|into|in)|belongs? (?:in|to)|lives? in|(?:is|are) (?:done|handled|made) (?:in|via|by|through)|reserved|frozen|read-only|locked|fixed at|pinned to)\b/i,
  ],
  // A setting named like an environment variable or assigned a value: `LEDGER_URL`, `CI=1`.
  ['requirement', /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Za-z_]\w*=\S/],
  [
    'preference',
    /\b(?:prefer(?:s|red)?|rather|instead|I'd like|I would like|I want|we want|I don't want|please use|use (?:\S+ ){0,3}(?:not|over|rather|instead)|stick (?:to|with)|go with|our (?:convention|style|rule)s?|by convention|house style|style guide|in this (?:repo|repository|project|codebase))\b/i,
  ],
];

/**
 * The shape that makes `sentence` a constraint on future work, or `undefined` when it is none
 * (a task, a question, a statement of fact).
 *
 * @example
 * ```ts
 * constraintShapeOf('The test env needs DB_URL set; skip the DB tests if it is empty.'); // 'prohibition'
 * constraintShapeOf('Fix the parser.'); // undefined
 * ```
 */
export function constraintShapeOf(sentence: string): ConstraintShape | undefined {
  const text = sentence.trim();
  if (text.length === 0 || text.length > 1000) return undefined;
  // A question asks for information; it restricts nothing (unless it asks not to do something).
  const question = text.endsWith('?');
  for (const [shape, pattern] of SHAPES) {
    if (question && shape !== 'prohibition') continue;
    if (pattern.test(text)) return shape;
  }
  return undefined;
}

/**
 * The sentences of a user message that are constraints, verbatim (trimmed), in order.
 * Sentences end at a line break or after `.`, `!` or `?` followed by white space; a sentence
 * joined by `;` stays whole, so a condition keeps the clause it conditions.
 */
export function constraintsOf(text: string): string[] {
  return sentencesOf(text).filter((sentence) => constraintShapeOf(sentence) !== undefined);
}

/** Splits `text` into trimmed sentences (see {@link constraintsOf}). */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[^a-z\s])/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0 && sentence.length <= 1000);
}
