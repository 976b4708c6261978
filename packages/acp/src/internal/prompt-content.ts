// The client's prompt (text, embedded resources, resource links) as the one user message Spine
// records. Paths are untrusted: a file URI outside the workspace is refused, never read.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { checkImage, SpineError } from '@spine/protocol';

/** Largest prompt accepted, in UTF-16 code units (about 1 MB of text). */
export const MAX_PROMPT_CHARS = 1_000_000;

/** Why a prompt was refused (becomes a JSON-RPC invalid-params error). */
export interface PromptProblem {
  problem: string;
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(real(parent), basename(path));
  }
}

/** The workspace-relative path of a `file:` URI, or a problem when it leaves the workspace. */
export function workspacePath(cwd: string, uri: string): string | PromptProblem | undefined {
  if (!uri.startsWith('file:')) return undefined;
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return { problem: `not a valid file URI: ${uri.slice(0, 200)}` };
  }
  const inside = relative(real(cwd), real(resolve(cwd, path)));
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) return inside || '.';
  return {
    problem: `resource ${uri.slice(0, 200)} is outside the workspace ${cwd}; attach files from the workspace only`,
  };
}

/** An image the client sent with its prompt, checked (format, caps) but not yet stored. */
export interface PromptImage {
  /** The image's bytes. */
  bytes: Buffer;
  /** How errors name it (`image 1 of the prompt`). */
  what: string;
}

/** The user message for `blocks` (no images accepted), or the problem that refuses it. */
export function promptText(cwd: string, blocks: readonly ContentBlock[]): string | PromptProblem {
  const input = promptInput(cwd, blocks, { images: false });
  return 'problem' in input ? input : input.text;
}

/**
 * The user message and images for `blocks`, or the problem that refuses them. Image blocks are
 * accepted with `images` (the session's model takes images) and judged by their bytes.
 */
export function promptInput(
  cwd: string,
  blocks: readonly ContentBlock[],
  options: { images: boolean },
): { text: string; images: PromptImage[] } | PromptProblem {
  const parts: string[] = [];
  const images: PromptImage[] = [];
  for (const block of blocks) {
    if (block.type === 'text') {
      parts.push(block.text);
      continue;
    }
    if (block.type === 'image' && options.images) {
      const image = {
        bytes: Buffer.from(block.data, 'base64'),
        what: `image ${images.length + 1} of the prompt`,
      };
      try {
        checkImage(image.bytes, { what: image.what });
      } catch (error) {
        if (!SpineError.isInstance(error)) throw error;
        return { problem: error.message };
      }
      images.push(image);
      continue;
    }
    if (block.type === 'resource' || block.type === 'resource_link') {
      const uri = block.type === 'resource' ? block.resource.uri : block.uri;
      const path = workspacePath(cwd, uri);
      if (typeof path === 'object') return path;
      const name = path ?? uri;
      if (block.type === 'resource_link') {
        parts.push(`[attached: ${name}]`);
      } else if ('text' in block.resource) {
        parts.push(`<attached path="${name}">\n${block.resource.text}\n</attached>`);
      } else {
        return { problem: `binary resource ${uri.slice(0, 200)} is not supported; attach text` };
      }
      continue;
    }
    // Not advertised (promptCapabilities): a client that sends them anyway is told so.
    return { problem: `${block.type} content is not supported by Spine; send text or resources` };
  }
  const message = parts.join('\n\n');
  if (message.length > MAX_PROMPT_CHARS)
    return {
      problem: `prompt of ${message.length} characters exceeds ${MAX_PROMPT_CHARS}; attach less`,
    };
  if (message.trim() === '' && images.length === 0)
    return { problem: 'empty prompt: send some text' };
  return { text: message, images };
}
