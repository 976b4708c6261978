// The agent's plan (`update_plan`) as a compact checklist in the terminal: completed steps dim,
// the step in progress highlighted, pending ones plain. Text from the model is made safe first.
import { visibleText } from '@spine/protocol';
import type { Style } from './style.js';

/** The marks `update_plan` results use, by status (see the harness's `renderPlan`). */
const COMPLETED = '[x] ';
const IN_PROGRESS = '[>] ';

/**
 * The checklist lines of an `update_plan` result's content (its first line, "Plan updated.", is
 * left out), styled and indented for the live output.
 */
export function planChecklistLines(content: string, style: Style): string[] {
  const lines = content.split('\n').slice(1);
  return lines.map((raw) => {
    const line = visibleText(raw);
    if (line.startsWith(COMPLETED)) return `    ${style.green('✔')} ${style.dim(line.slice(4))}`;
    if (line.startsWith(IN_PROGRESS)) return `    ${style.cyan('▸')} ${style.bold(line.slice(4))}`;
    if (line.startsWith('[ ] ')) return `    ☐ ${line.slice(4)}`;
    return `  ${style.dim(line)}`;
  });
}
