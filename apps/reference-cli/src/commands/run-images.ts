// The images a `spine run` task carries: `--image <file>` flags and `@path` mentions of image
// files in the task text. Read and checked before a session exists; a model that does not take
// images is refused here, before any request, unless `--image-fallback placeholder` was chosen.
import {
  type AttachedImageFile,
  imageMentions,
  type ResolvedModel,
  readImageFiles,
  type SpineConfig,
} from '@spine/harness';
import { SpineError } from '@spine/protocol';
import { checkWorkspaceReference } from '@spine/tool-runtime';

/** Every image the task carries, `--image` files first, each path once. */
export function taskImages(
  task: string,
  imageFlags: readonly string[] | undefined,
  config: { cwd: string; exclude: readonly string[] },
): AttachedImageFile[] {
  const { cwd, exclude } = config;
  const files = readImageFiles(imageFlags ?? [], cwd);
  const named = new Set(files.map((file) => file.path));
  // `@path` follows the REPL's rule: inside the workspace, not excluded.
  const allowed = (reference: string): boolean =>
    checkWorkspaceReference(cwd, reference, { exclude }) === 'ok';
  for (const mention of imageMentions(task, cwd, { allowed })) {
    if (!named.has(mention.path)) files.push(mention);
  }
  return files;
}

/**
 * Refuses images for a model that does not accept them, unless the configuration asks for a
 * text placeholder instead.
 *
 * @throws a {@link SpineError} `IMAGES_UNSUPPORTED` (exit 2), naming the model and the way out.
 */
export function assertImagesAccepted(
  model: ResolvedModel,
  config: SpineConfig,
  files: readonly AttachedImageFile[],
): void {
  if (files.length === 0 || model.acceptsImages || config.imageFallback === 'placeholder') return;
  throw new SpineError({
    code: 'IMAGES_UNSUPPORTED',
    message: `${model.provider}/${model.modelId} does not accept images (${files.map((file) => file.path).join(', ')}); choose a model that does (--model anthropic/claude-sonnet-4-5, openai/gpt-4.1), or pass --image-fallback placeholder to send a line of text in each image's place`,
  });
}
