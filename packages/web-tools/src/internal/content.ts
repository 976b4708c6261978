/** How a response body is turned into model text. */
export type ContentKind = 'html' | 'json' | 'text';

/** The media type (lower case, no parameters) and charset of a Content-Type header. */
export function parseContentType(header: string | undefined): { mime: string; charset?: string } {
  const [mimePart = '', ...parameters] = (header ?? '').split(';');
  const mime = mimePart.trim().toLowerCase();
  for (const parameter of parameters) {
    const [key, value] = parameter.split('=').map((part) => part.trim());
    if (key?.toLowerCase() === 'charset' && value)
      return { mime, charset: value.replace(/^"|"$/g, '') };
  }
  return { mime };
}

/** Classifies a media type; `undefined` means the type is refused. */
export function contentKindOf(mime: string): ContentKind | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/json' || mime.endsWith('+json') || mime === 'application/x-ndjson')
    return 'json';
  if (mime.startsWith('text/')) return 'text';
  if (mime === 'application/xml' || mime.endsWith('+xml') || mime === 'application/javascript')
    return 'text';
  return undefined;
}

/** Decodes bytes with the declared charset, a `<meta charset>` for HTML, else UTF-8. */
export function decodeBody(
  bytes: Uint8Array,
  kind: ContentKind,
  charset: string | undefined,
): string {
  let label = charset;
  if (!label && kind === 'html') {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
  }
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

/** Cuts `text` to at most `limit` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}
