import { McpUrlRefusedError } from '../errors.js';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

/** Parses a remote server's URL: https, or http only on a loopback host. */
export function checkServerUrl(server: string, url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new McpUrlRefusedError({
      server,
      url: '(unparsable URL)',
      detail: 'the URL does not parse',
    });
  }
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)) return parsed;
  throw new McpUrlRefusedError({
    server,
    url: shown,
    detail:
      parsed.protocol === 'http:'
        ? 'plain http is allowed only on a loopback address'
        : `the scheme ${parsed.protocol} is not supported`,
  });
}
