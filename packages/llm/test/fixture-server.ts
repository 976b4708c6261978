import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  type ReceivedRequest,
  sseFrame,
  startSseServer,
  writeInPieces,
  writeSseHead,
} from '@spine/test-utils';

/** Reads a fixture file from test/fixtures. */
export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
}

/** The data lines of a `.chunks.txt` fixture (the last line may lack a newline). */
export function fixtureLines(name: string): string[] {
  return fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** How to frame and deliver a fixture. */
export interface ReplayOptions {
  /** Anthropic: add `event: <type>` lines. */
  named?: boolean;
  /** Append `data: [DONE]` (OpenAI style; default true unless named). */
  done?: boolean;
  /** Write the SSE text in pieces of this many bytes (splits frames and characters across TCP writes). */
  pieceSize?: number;
  /** Insert a `: keep-alive` comment before every frame. */
  comments?: boolean;
  /** Use `\r\n` line ends. */
  crlf?: boolean;
}

/** Frames `.chunks.txt` lines as the provider would send them. */
export function frameLines(lines: string[], options: ReplayOptions = {}): string {
  let text = '';
  for (const line of lines) {
    if (options.comments) text += ': keep-alive\n\n';
    const type = options.named ? (JSON.parse(line) as { type: string }).type : undefined;
    text += sseFrame(line, type);
  }
  if (options.done ?? !options.named) text += sseFrame('[DONE]');
  return options.crlf ? text.replace(/\n/g, '\r\n') : text;
}

/** A loopback server that answers every request with the same SSE text and records requests. */
export async function replayServer(
  text: string,
  options: { pieceSize?: number; status?: number; contentType?: string } = {},
): Promise<LoopbackServer & { requests: ReceivedRequest[] }> {
  const requests: ReceivedRequest[] = [];
  const server = await startSseServer(async (request, response, raw) => {
    requests.push({
      body: raw === '' ? undefined : JSON.parse(raw),
      raw,
      headers: request.headers as Record<string, string>,
      at: Date.now(),
      path: request.url ?? '/',
    });
    if (options.contentType !== undefined || options.status !== undefined) {
      response.writeHead(options.status ?? 200, {
        'content-type': options.contentType ?? 'application/json',
      });
      response.end(text);
      return;
    }
    writeSseHead(response);
    if (options.pieceSize)
      await writeInPieces(response, text, { pieceSize: options.pieceSize, delayMs: 1 });
    else response.write(text);
    response.end();
  });
  return Object.assign(server, { requests });
}
