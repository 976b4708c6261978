import type { ToolDefinition, ToolOutput } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { StaleFileError } from './errors.js';
import {
  contentHash,
  failureOutput,
  readOnlyRefusal,
  toolSupport,
  writeAtomically,
} from './internal/tool-support.js';
import type { WorkspaceToolOptions } from './types.js';

const EditArguments = z.object({
  path: z.string().describe('File path, relative to the workspace root.'),
  edits: z
    .array(
      z.object({
        oldText: z
          .string()
          .min(1)
          .describe('Exact text to replace; must occur once unless replaceAll is true.'),
        newText: z.string().describe('Replacement text.'),
        replaceAll: z.boolean().optional().describe('Replace every occurrence.'),
      }),
    )
    .min(1)
    .describe('Applied in order to the file; all succeed or none is written.'),
});
/** One exact-text replacement of the `edit` tool. */
export interface TextEdit {
  /** Exact text to replace; must occur once unless `replaceAll`. */
  oldText: string;
  /** Replacement text. */
  newText: string;
  /** Replace every occurrence. */
  replaceAll?: boolean;
}

/** Arguments of the `edit` tool. */
export interface EditToolArguments {
  /** File path, relative to the workspace root. */
  path: string;
  /** Applied in order; all succeed or nothing is written. */
  edits: TextEdit[];
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    count++;
  return count;
}

/** What {@link applyEdits} produced: the new text, or why it refused. */
export type EditApplication =
  | {
      /** The edited text. */
      text: string;
      /** Occurrences replaced. */
      replacements: number;
      /** Line of the first change (1-based). */
      firstLine: number;
    }
  | {
      /** Which edit failed and why, for the model. */
      problem: string;
    };

/** Applies the edits in memory; returns the new text or a message saying which edit failed and why. */
export function applyEdits(text: string, edits: readonly TextEdit[]): EditApplication {
  let replacements = 0;
  let firstOffset = Number.POSITIVE_INFINITY;
  for (const [index, edit] of edits.entries()) {
    const label = edits.length > 1 ? `edit ${index + 1}: ` : '';
    if (edit.oldText === edit.newText)
      return { problem: `${label}oldText and newText are the same; nothing to change` };
    const count = countOccurrences(text, edit.oldText);
    if (count === 0)
      return {
        problem: `${label}oldText was not found. Read the file again and copy the exact text, including whitespace`,
      };
    if (count > 1 && !edit.replaceAll) {
      return {
        problem: `${label}oldText occurs ${count} times; include more surrounding lines to make it unique, or set replaceAll`,
      };
    }
    firstOffset = Math.min(firstOffset, text.indexOf(edit.oldText));
    text = edit.replaceAll
      ? text.split(edit.oldText).join(edit.newText)
      : (() => {
          const at = text.indexOf(edit.oldText);
          return text.slice(0, at) + edit.newText + text.slice(at + edit.oldText.length);
        })();
    replacements += edit.replaceAll ? count : 1;
  }
  const firstLine = text.slice(0, firstOffset).split('\n').length;
  return { text, replacements, firstLine };
}

/** The refusal of an edit of a file that does not exist. */
function notFound(path: string): ToolOutput {
  return { content: `File not found: ${path}. Use write to create a new file.`, isError: true };
}

/** The refusal of an edit whose `problem` (from {@link applyEdits}) means nothing can be written. */
function refused(path: string, problem: string): ToolOutput {
  return { content: `Edit of ${path} refused, nothing written: ${problem}.`, isError: true };
}

/**
 * Creates the `edit` tool: exact-text replacements, several per call, applied atomically. The file
 * must have been read and not changed on disk since (compare-and-swap); calls on one file serialise.
 */
export function createEditTool(options: WorkspaceToolOptions): ToolDefinition<EditToolArguments> {
  const support = toolSupport(options);
  return defineTool({
    name: 'edit',
    description:
      'Replace exact text in a file you have read. Each oldText must match exactly once (or set replaceAll). Several edits in one call are applied together or not at all.',
    parameters: EditArguments as ZodType<EditToolArguments>,
    permissions: { writesFiles: true },
    mutatedPaths: (args) => [args.path],
    // Refused before approval is asked, with the same messages `execute` gives: a path outside the
    // workspace, a missing file, a file not read in this session (or changed since), an oldText
    // that is not found (or not unique).
    precheck: async (args, context) => {
      if (context.sandbox === 'read-only') return readOnlyRefusal(args.path);
      try {
        const target = await support.resolve(args.path, 'file');
        if (!target.exists) return notFound(args.path);
        const current = await support.fs.readFile(target.absolute);
        const state = support.tracker(context).check(target.absolute, current);
        if (state !== 'ok')
          throw new StaleFileError({ path: target.relative, neverRead: state === 'never-read' });
        const applied = applyEdits(current.toString('utf8'), args.edits);
        return 'problem' in applied ? refused(target.relative, applied.problem) : undefined;
      } catch (error) {
        return failureOutput(error);
      }
    },
    execute: async (args, context) => {
      if (context.sandbox === 'read-only') return readOnlyRefusal(args.path);
      try {
        const target = await support.resolve(args.path, 'file');
        if (!target.exists) return notFound(args.path);
        const tracker = support.tracker(context);
        return await tracker.withLock(target.absolute, async () => {
          const current = await support.fs.readFile(target.absolute);
          const state = tracker.check(target.absolute, current);
          if (state !== 'ok')
            throw new StaleFileError({ path: target.relative, neverRead: state === 'never-read' });
          const applied = applyEdits(current.toString('utf8'), args.edits);
          const meta = { sourcePath: target.relative, contentType: 'text/plain' };
          if ('problem' in applied) return { ...refused(target.relative, applied.problem), meta };
          await writeAtomically(support.fs, target.absolute, applied.text);
          tracker.recordWrite(target.absolute, applied.text);
          return {
            content: `Edited ${target.relative}: ${applied.replacements} replacement(s), first change at line ${applied.firstLine}.`,
            meta: {
              ...meta,
              replacements: applied.replacements,
              firstLine: applied.firstLine,
              preHash: contentHash(current),
              postHash: contentHash(applied.text),
            },
          };
        });
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
