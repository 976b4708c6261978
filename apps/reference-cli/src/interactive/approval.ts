import { createInterface } from 'node:readline';
import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import { type Style, summarizeArguments } from '../present/style.js';

/** The question shown for an approval request: tool, arguments, reason and the choices. */
export function approvalQuestion(request: ApprovalRequest, style: Style): string {
  const args = summarizeArguments(JSON.stringify(request.args ?? {}), 160);
  const lines = [
    `${style.yellow('?')} ${style.bold(`allow ${request.toolName}`)} ${style.dim(args)}`,
    `  ${style.dim(`reason: ${request.reason}`)}`,
  ];
  if (request.escalation)
    lines.push(`  ${style.dim(`asks for more: ${request.escalation.justification}`)}`);
  lines.push(`  [o]nce  [a]lways for this session  [d]eny › `);
  return lines.join('\n');
}

/** Maps a typed answer to an approval answer; anything unclear is a denial. */
export function parseApprovalAnswer(text: string): ApprovalAnswer {
  const answer = text.trim().toLowerCase();
  if (answer === 'o' || answer === 'once' || answer === 'y' || answer === 'yes') return 'once';
  if (answer === 'a' || answer === 'always') return 'always';
  return 'deny';
}

/** An approver reading answers line by line from a stream (used by `spine run` on a terminal). */
export interface LineApprover {
  approve(request: ApprovalRequest, options: { signal?: AbortSignal }): Promise<ApprovalAnswer>;
  close(): void;
}

/** Asks each approval on `output` and reads the answer from `input`. */
export function createLineApprover(options: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  style: Style;
}): LineApprover {
  let rl: ReturnType<typeof createInterface> | undefined;
  return {
    approve(request, { signal } = {}) {
      rl ??= createInterface({ input: options.input, output: options.output, terminal: false });
      const reader = rl;
      return new Promise((resolve) => {
        const onAbort = (): void => resolve('deny');
        signal?.addEventListener('abort', onAbort, { once: true });
        options.output.write(approvalQuestion(request, options.style));
        reader.once('line', (line) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(parseApprovalAnswer(line));
        });
      });
    },
    close() {
      rl?.close();
    },
  };
}
