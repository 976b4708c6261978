import type { SessionLog } from '@spine/protocol';
import { Pager, type Style, transcriptLines } from '@spine/tui';
import type { KeyGate } from './key-gate.js';

/**
 * `/transcript`: the whole session in a pager on the alternate screen, opened at its end; keys go
 * to the pager until q or Esc, then the normal screen is back as it was and `done` runs. Without
 * a terminal it says where the transcript is instead. Returns whether the pager opened.
 */
export function openTranscriptPager(options: {
  gate: KeyGate | undefined;
  out: NodeJS.WriteStream;
  session: SessionLog;
  style: Style;
  print: (text: string) => void;
  done: () => void;
}): boolean {
  const { gate, out, session, style } = options;
  if (!gate || !out.isTTY) {
    options.print(
      style.dim(`the transcript pager needs a terminal; spine show ${session.id} prints it`),
    );
    return false;
  }
  const lines = session.events().flatMap((event) => transcriptLines(event, { style }));
  const pager = new Pager(lines, {
    output: out,
    rows: () => out.rows,
    columns: () => out.columns,
    title: `transcript of ${session.id}`,
  });
  const onResize = (): void => pager.resize();
  out.on('resize', onResize);
  gate.capture((chunk) => {
    if (pager.key(chunk) === 'open') return;
    gate.release();
    out.off('resize', onResize);
    options.done();
  });
  pager.open(true);
  return true;
}
