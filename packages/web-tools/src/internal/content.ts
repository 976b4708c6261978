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

/** windows-1252 code points for bytes 0x80–0x9F (the rest equals ISO-8859-1). */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152,
  0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122,
  0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * Node 20's TextDecoder decodes windows-1252 (and its aliases latin1, iso-8859-1, ascii) as
 * ISO-8859-1, losing curly quotes, dashes and the euro sign; this decodes it as browsers do.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (let start = 0; start < bytes.length; start += 8192) {
    const codes = Array.from(bytes.subarray(start, start + 8192), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH[byte - 0x80]! : byte,
    );
    text += String.fromCharCode(...codes);
  }
  return text;
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
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
}

/** Cuts `text` to at most `limit` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * Guesses the kind of an undeclared body from its first bytes: markup that opens like HTML is
 * HTML, valid UTF-8 without control bytes is text, anything else is `undefined` (refused).
 */
export function sniffKind(bytes: Uint8Array): ContentKind | undefined {
  const head = bytes.subarray(0, 1024);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes mark binary data.
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/.test(Buffer.from(head).toString('latin1')))
    return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(
      head.length < bytes.length ? trimPartial(head) : head,
    );
  } catch {
    return undefined;
  }
  const start = text.trimStart().slice(0, 64).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head'))
    return 'html';
  return 'text';
}

/** Drops a UTF-8 sequence cut at the end of a sniffing window. */
function trimPartial(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  let back = 0;
  while (end > 0 && back < 3 && (bytes[end - 1]! & 0xc0) === 0x80) {
    end -= 1;
    back += 1;
  }
  if (end > 0 && bytes[end - 1]! >= 0xc0) end -= 1;
  return bytes.subarray(0, end);
}
