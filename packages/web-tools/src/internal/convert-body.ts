import type { Readable } from 'node:stream';
import type { WebFetchResult } from '@spine/protocol';
import { FetchFailedError } from '../errors.js';
import { type HtmlToMarkdownResult, htmlToMarkdown } from '../html-markdown.js';
import { selectMarkdownWindow } from '../markdown-window.js';
import {
  type ContentKind,
  contentKindOf,
  cutText,
  decodeBody,
  parseContentType,
  sniffKind,
} from './content.js';
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
 * Turns a final response into a {@link WebFetchResult}: refuses declared types other than HTML,
 * text and JSON without reading the body (an undeclared type is sniffed), streams the body up to the byte cap, decodes its charset,
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
  const declared = contentKindOf(mime);
  const encoding = headerOf(response.headers, 'content-encoding') ?? '';
  const refuse = (detail: string, reason: string): never => {
    throw new FetchFailedError({ url: finalUrl, reason, status: response.statusCode, detail });
  };
  if (!isSupportedEncoding(encoding)) {
    discardBody(response.body);
    refuse(`The response uses the unsupported Content-Encoding "${encoding}"`, 'content-encoding');
  }
  if (!declared && mime !== '') {
    discardBody(response.body);
    refuse(
      `The response is "${mime}" (status ${response.statusCode}); web_fetch returns only HTML, text and JSON, so the body was not read`,
      'content-type',
    );
  }
  const body = await readCapped(response.body, encoding, config.maxBytes);
  // No Content-Type at all: sniff like a browser would, and refuse anything binary.
  const kind = declared ?? sniffKind(body.bytes);
  if (!kind) {
    refuse(
      `The response declares no Content-Type and does not look like text (status ${response.statusCode}); web_fetch returns only HTML, text and JSON`,
      'content-type',
    );
  }
  const text = decodeBody(body.bytes, kind as ContentKind, charset);
  let content = text;
  let title: string | undefined;
  const notes: string[] = [];
  if (body.truncated) {
    notes.push(
      `The body was cut at ${config.maxBytes} decoded bytes before conversion; the end of the page is missing.`,
    );
  }
  if (kind === 'html') {
    const converted = htmlToMarkdown(text, { baseUrl: finalUrl });
    content = converted.markdown;
    title = converted.title;
    notes.push(...conversionNotes(converted));
  }
  const originalLength = content.length;
  const cut = originalLength > config.maxContentChars;
  if (cut) {
    const window = selectMarkdownWindow(content, { maxChars: config.maxContentChars });
    content = window.ok ? window.content : cutText(content, config.maxContentChars);
    notes.push(
      `The converted content was cut at a block boundary after ${content.length} of ${originalLength} characters (limit ${config.maxContentChars}).`,
    );
  }
  return {
    url: input,
    finalUrl,
    status: response.statusCode,
    contentType: mime || (kind === 'html' ? 'text/html' : 'text/plain'),
    content,
    bytesRead: body.networkBytes,
    truncated: body.truncated || cut,
    provider: config.id,
    originalLength,
    ...(title ? { title } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** What the HTML conversion removed or kept as HTML, in words for the model. */
export function conversionNotes(converted: HtmlToMarkdownResult): string[] {
  const notes: string[] = [];
  const { hidden, tables } = converted;
  if (hidden.elements > 0) {
    notes.push(
      `Hidden content removed: ${hidden.elements} element${hidden.elements === 1 ? '' : 's'} (${hidden.words} word${hidden.words === 1 ? '' : 's'}) that a reader of the page does not see.`,
    );
  }
  if (tables.raw > 0) {
    notes.push(
      `${tables.raw} table${tables.raw === 1 ? ' is' : 's are'} kept as HTML: too complex for a Markdown table.`,
    );
  }
  return notes;
}
