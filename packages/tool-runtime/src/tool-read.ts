import {
  IMAGE_SERVICE,
  type ImageService,
  readImageHeader,
  SpineError,
  type ToolDefinition,
  type ToolOutput,
} from '@spine/protocol';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { failureOutput, looksBinary, toolSupport } from './internal/tool-support.js';
import type { WorkspaceToolOptions } from './types.js';

/** Options of {@link createReadTool}. */
export interface ReadToolOptions extends WorkspaceToolOptions {
  /** Files larger than this are refused unless a line range is given. Default 2 MiB. */
  maxFileBytes?: number;
  /** Lines returned when no `limit` is given. Default 2,000. */
  defaultLineLimit?: number;
  /** Longer lines are cut. Default 2,000 characters. */
  maxLineChars?: number;
}

const ReadArguments = z.object({
  path: z.string().describe('File path, relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based).'),
  limit: z.number().int().min(1).optional().describe('How many lines to return.'),
});
/** Arguments of the `read` tool. */
export interface ReadToolArguments {
  /** File path, relative to the workspace root. */
  path: string;
  /** First line to return (1-based). */
  offset?: number;
  /** How many lines to return. */
  limit?: number;
}

const HARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * An image file (judged by its bytes) as image content, when the session takes images: stored
 * through the image service, or the refusal as an error the model reads. Undefined: not an image.
 */
function imageOutput(images: ImageService, buffer: Buffer, path: string): ToolOutput | undefined {
  const header = readImageHeader(buffer);
  if ('kind' in header && header.kind === 'unknown-format') return undefined;
  try {
    const part = images.store(buffer, path);
    return {
      content: `${path}: ${part.mediaType} image, ${part.width}×${part.height} pixels, ${part.size} bytes (attached below).`,
      images: [part],
      meta: { sourcePath: path, contentType: part.mediaType, bytes: part.size },
    };
  } catch (error) {
    if (!SpineError.isInstance(error) || error.code !== 'IMAGE_REFUSED') throw error;
    return { content: error.message, isError: true, meta: { sourcePath: path } };
  }
}

/**
 * Creates the `read` tool: a text file with line numbers, optionally a line range; refuses binary
 * files and oversized files without a range. Records what was read for compare-and-swap. When the
 * session takes images (an `ImageService` in `context.services`), a PNG, JPEG, GIF or WebP file
 * (judged by its bytes) comes back as image content.
 */
export function createReadTool(options: ReadToolOptions): ToolDefinition<ReadToolArguments> {
  const support = toolSupport(options);
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const defaultLimit = options.defaultLineLimit ?? 2000;
  const maxLineChars = options.maxLineChars ?? 2000;
  return defineTool({
    name: 'read',
    description:
      'Read a text file in the workspace. Returns lines prefixed with their line numbers. Use offset and limit for large files. Read a file before you edit or overwrite it.',
    parameters: ReadArguments as ZodType<ReadToolArguments>,
    isConcurrencySafe: true,
    execute: async (args, context) => {
      try {
        const target = await support.resolve(args.path, 'file');
        if (!target.exists) {
          return {
            content: `File not found: ${args.path}. Use glob or list to find the right path.`,
            isError: true,
          };
        }
        const size = target.stats?.size ?? 0;
        const service = context.services?.[IMAGE_SERVICE] as ImageService | undefined;
        // Asked now: the session's model may have been switched since the runtime was built.
        const images = service?.accepts?.() === false ? undefined : service;
        let buffer: Buffer | undefined;
        if (images && size <= HARD_LIMIT_BYTES) {
          buffer = await support.fs.readFile(target.absolute);
          const image = imageOutput(images, buffer, target.relative);
          if (image) return image;
        }
        const ranged = args.offset !== undefined || args.limit !== undefined;
        if (size > HARD_LIMIT_BYTES || (size > maxFileBytes && !ranged)) {
          return {
            content: `${target.relative} is ${size} bytes, too large to read at once. Pass offset and limit to read a range, or grep for what you need.`,
            isError: true,
          };
        }
        buffer ??= await support.fs.readFile(target.absolute);
        const meta = {
          sourcePath: target.relative,
          contentType: 'text/plain',
          bytes: buffer.length,
        };
        if (looksBinary(buffer)) {
          return {
            content: `${target.relative} is a binary file (${buffer.length} bytes); its content is not shown.`,
            meta: { ...meta, contentType: 'application/octet-stream' },
          };
        }
        support.tracker(context).recordRead(target.absolute, buffer);
        const lines = buffer.toString('utf8').split('\n');
        if (lines.at(-1) === '') lines.pop();
        if (lines.length === 0)
          return { content: `(${target.relative} is empty)`, meta: { ...meta, lines: 0 } };
        const first = args.offset ?? 1;
        if (first > lines.length) {
          return {
            content: `offset ${first} is past the end of ${target.relative} (${lines.length} lines).`,
            isError: true,
            meta,
          };
        }
        const last = Math.min(lines.length, first + (args.limit ?? defaultLimit) - 1);
        const rendered: string[] = [];
        for (let n = first; n <= last; n++) {
          let line = lines[n - 1]!.replace(/\r$/, '');
          if (line.length > maxLineChars)
            line = `${line.slice(0, maxLineChars)}… [line cut at ${maxLineChars} characters]`;
          rendered.push(`${String(n).padStart(6)}\t${line}`);
        }
        if (first > 1 || last < lines.length) {
          rendered.push(
            `[Showing lines ${first}-${last} of ${lines.length}.${last < lines.length ? ` Use offset=${last + 1} to read more.` : ''}]`,
          );
        }
        return {
          content: rendered.join('\n'),
          meta: { ...meta, lines: lines.length, firstLine: first, lastLine: last },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}
