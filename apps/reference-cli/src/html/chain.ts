// The hash-chain verdict of an audit page: the same check as `spine verify` (verifyJsonlLog from
// @spine/session-log), shown at the top of the page so an edited log cannot pass for a verified
// one because its requests still rebuild.
import { verifyJsonlLog } from '@spine/session-log';
import { inertLine } from './escape.js';

/** What the page shows of the chain: a banner at the top, a line in the verification section. */
export interface ChainVerdict {
  /** The banner written before the timeline. */
  html: string;
  /** The line written above the requests' verdict. */
  summary: string;
}

/** Checks the chain of the JSONL file at `path` (undefined: not a JSONL store, not checked). */
export function chainVerdict(path: string | undefined): ChainVerdict {
  if (path === undefined) {
    const text =
      'hash chain not checked: this store is not a JSONL file (use spine verify --store)';
    return line('mute', text);
  }
  let result: ReturnType<typeof verifyJsonlLog>;
  try {
    result = verifyJsonlLog(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return line('bad', `hash chain could not be checked: ${reason}`);
  }
  if (!result.ok) {
    const problem = result.problem;
    const where = problem
      ? `<a href="#seq-${problem.seq}">event ${problem.seq}</a> (line ${problem.line}, ${inertLine(problem.kind)}): ${inertLine(problem.message)}`
      : 'the log does not verify';
    const html = `<p class="bad chain" id="chain" data-ok="false" data-seq="${problem?.seq ?? ''}">TAMPERED: the log's hash chain breaks at ${where}. What follows is what the file says now, not what was recorded.</p>\n`;
    return { html, summary: html.replace('id="chain"', 'id="chain-summary"') };
  }
  if (result.chainedFrom === undefined)
    return line(
      'bad',
      'hash chain: no event carries a chain value (written before the chain existed): the log cannot be checked for edits',
    );
  const scope =
    result.chainedFrom === 1
      ? `all ${result.events} events chain from the header`
      : `events ${result.chainedFrom}..${result.events} chain; 1..${result.chainedFrom - 1} were written before the chain existed`;
  return line('ok', `hash chain verified: ${scope}`);
}

function line(kind: 'ok' | 'bad' | 'mute', text: string): ChainVerdict {
  const ok = kind === 'ok' ? 'true' : 'false';
  return {
    html: `<p class="${kind} chain" id="chain" data-ok="${ok}">${inertLine(text)}</p>\n`,
    summary: `<p class="${kind}" id="chain-summary">${inertLine(text)}</p>`,
  };
}
