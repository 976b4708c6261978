// The agent's plan (`update_plan`) as a compact checklist in the terminal: completed steps dim,
// the step in progress highlighted, pending ones plain. Text from the model is made safe first.
import { visibleText } from '@spine/protocol';
import type { Style } from './style.js';

/** The marks `update_plan` results use, by status (see the harness's `renderPlan`). */
const COMPLETED = '[x] ';
const IN_PROGRESS = '[>] ';

/**
 * An `update_plan` result's content as terminal lines: `✓ update_plan plan (1/3 done)`, then one
 * indented, styled line per step (the content's first line, "Plan updated.", is left out).
 */
export function planChecklistLines(content: string, mark: string, style: Style): string[] {
  const [, title = '', ...lines] = content.split('\n');
  const head = `  ${mark} update_plan ${style.dim(visibleText(title))}`;
  return [
    head,
    ...lines.map((raw) => {
      const line = visibleText(raw);
      if (line.startsWith(COMPLETED)) return `    ${style.green('✔')} ${style.dim(line.slice(4))}`;
      if (line.startsWith(IN_PROGRESS))
        return `    ${style.cyan('▸')} ${style.bold(line.slice(4))}`;
      if (line.startsWith('[ ] ')) return `    ☐ ${line.slice(4)}`;
      return `    ${style.dim(line)}`;
    }),
  ];
}
