import type { Readable } from 'node:stream';
import type { WebFetchResult } from '@spine/protocol';
import { FetchFailedError } from '../errors.js';
import { htmlToMarkdown } from '../html-markdown.js';
import { contentKindOf, cutText, decodeBody, parseContentType } from './content.js';
import { discardBody, isSupportedEncoding, readCapped } from './read-body.js';

/** The parts of an undici response the conversion reads. */
export interface FetchedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/** The first value of a response header. */
export function headerOf(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Turns a final response into a {@link WebFetchResult}: refuses types other than HTML, text and
 * JSON without reading the body, streams the body up to the byte cap, decodes its charset,
 * converts HTML to Markdown and cuts the result at the length cap.
 */
export async function convert(
  input: string,
  finalUrl: string,
  response: FetchedResponse,
  config: { id: string; maxBytes: number; maxContentChars: number },
): Promise<WebFetchResult> {
  const contentType = headerOf(response.headers, 'content-type') ?? '';
  const { mime, charset } = parseContentType(contentType);
  const kind = contentKindOf(mime);
  const encoding = headerOf(response.headers, 'content-encoding') ?? '';
  if (!kind || !isSupportedEncoding(encoding)) {
    discardBody(response.body);
    throw new FetchFailedError({
      url: finalUrl,
      reason: kind ? 'content-encoding' : 'content-type',
      status: response.statusCode,
      detail: kind
        ? `The response uses the unsupported Content-Encoding "${encoding}"`
        : `The response is ${mime ? `"${mime}"` : 'of no declared type'} (status ${response.statusCode}); web_fetch returns only HTML, text and JSON, so the body was not read`,
    });
  }
  const body = await readCapped(response.body, encoding, config.maxBytes);
  const text = decodeBody(body.bytes, kind, charset);
  let content = text;
  let title: string | undefined;
  if (kind === 'html') {
    const converted = htmlToMarkdown(text, { baseUrl: finalUrl });
    content = converted.markdown;
    title = converted.title;
  }
  const originalLength = content.length;
  const cut = originalLength > config.maxContentChars;
  if (cut) content = cutText(content, config.maxContentChars);
  return {
    url: input,
    finalUrl,
    status: response.statusCode,
    contentType: mime,
    content,
    bytesRead: body.networkBytes,
    truncated: body.truncated || cut,
    provider: config.id,
    originalLength,
    ...(title ? { title } : {}),
  };
}
