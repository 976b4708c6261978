// What every surface shows in place of an image the model received: its type, dimensions, size
// and SHA-256 prefix (the log keeps a reference, never the bytes). `show` and the Markdown export
// get it as a line of text added to the message, the HTML page as an element.
import type { ImagePart, SessionEvent, ToolResultBody, UserMessageBody } from '@spine/protocol';
import { formatByteCount, inertLine } from './escape.js';

/** `[image: image/png, 640×480, 14.2 KB, sha256 0123456789ab]`. */
export function imageMarker(image: ImagePart): string {
  const size = Number.isFinite(image.size) ? formatByteCount(image.size) : '? bytes';
  const sha = typeof image.sha256 === 'string' ? image.sha256.slice(0, 12) : '?';
  return `[image: ${image.mediaType}, ${image.width}×${image.height}, ${size}, sha256 ${sha}]`;
}

/** The markers of `images` as HTML (empty when there are none). */
export function imagesHtml(images: readonly ImagePart[] | undefined): string {
  if (!Array.isArray(images) || images.length === 0) return '';
  const items = images
    .map(
      (image) =>
        `<li class="image" data-sha256="${inertLine(String(image.sha256))}">${inertLine(imageMarker(image))}</li>`,
    )
    .join('');
  return `<ul class="images">${items}</ul>`;
}

/**
 * The events with a marker line per attached image added to the text of each user message
 * (after it) and tool result (before it, so a shortened result still shows it), for the text
 * renderers that know nothing of images. Other events pass unchanged.
 */
export async function* withImageMarkers(
  events: AsyncIterable<SessionEvent>,
): AsyncIterable<SessionEvent> {
  for await (const event of events) {
    const images = (event.body as { images?: ImagePart[] } | undefined)?.images;
    if (!Array.isArray(images) || images.length === 0) {
      yield event;
      continue;
    }
    const markers = images.map(imageMarker).join('\n');
    if (event.type === 'user/message') {
      const body = event.body as UserMessageBody;
      yield { ...event, body: { ...body, content: `${body.content}\n${markers}` } };
    } else if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      yield { ...event, body: { ...body, content: `${markers}\n${body.content}` } };
    } else yield event;
  }
}
