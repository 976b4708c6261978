import type { ToolDefinition } from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { StaleFileError } from './errors.js';
import {
  contentHash,
  failureOutput,
  readIfExists,
  readOnlyRefusal,
  toolSupport,
  writeAtomically,
} from './internal/tool-support.js';
import type { WorkspaceToolOptions } from './types.js';

const WriteArguments = z.object({
  path: z
    .string()
    .describe('File path, relative to the workspace root. Parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});
/** Arguments of the `write` tool. */
export interface WriteToolArguments {
  /** File path, relative to the workspace root. */
  path: string;
  /** The complete new content. */
  content: string;
}

/**
 * Creates the `write` tool: creates or overwrites a file atomically. Overwriting needs a prior
 * `read` of the current content (compare-and-swap); a file changed on disk since is refused.
 */
export function createWriteTool(options: WorkspaceToolOptions): ToolDefinition<WriteToolArguments> {
  const support = toolSupport(options);
  return defineTool({
    name: 'write',
    description:
      'Create a file or replace its whole content. To overwrite an existing file, read it first; if it changed since, read it again. Prefer edit for small changes.',
    parameters: WriteArguments as ZodType<WriteToolArguments>,
    permissions: { writesFiles: true },
    mutatedPaths: (args) => [args.path],
    // Refused before approval is asked: a path outside the workspace, a read-only sandbox, an
    // existing file not read in this session (or changed since).
    precheck: async (args, context) => {
      if (context.sandbox === 'read-only') return readOnlyRefusal(args.path);
      try {
        const target = await support.resolve(args.path, 'file');
        const current = await readIfExists(support.fs, target.absolute);
        const state = support.tracker(context).check(target.absolute, current);
        if (state !== 'ok')
          return failureOutput(
            new StaleFileError({ path: target.relative, neverRead: state === 'never-read' }),
          );
        return undefined;
      } catch (error) {
        return failureOutput(error);
      }
    },
    execute: async (args, context) => {
      if (context.sandbox === 'read-only') return readOnlyRefusal(args.path);
      try {
        const target = await support.resolve(args.path, 'file');
        const tracker = support.tracker(context);
        return await tracker.withLock(target.absolute, async () => {
          const current = await readIfExists(support.fs, target.absolute);
          const state = tracker.check(target.absolute, current);
          if (state !== 'ok')
            throw new StaleFileError({ path: target.relative, neverRead: state === 'never-read' });
          await writeAtomically(support.fs, target.absolute, args.content);
          tracker.recordWrite(target.absolute, args.content);
          const bytes = Buffer.byteLength(args.content);
          return {
            content: `${current === undefined ? 'Created' : 'Overwrote'} ${target.relative} (${bytes} bytes).`,
            meta: {
              sourcePath: target.relative,
              contentType: 'text/plain',
              bytes,
              created: current === undefined,
              preHash: current === undefined ? null : contentHash(current),
              postHash: contentHash(args.content),
            },
          };
        });
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
