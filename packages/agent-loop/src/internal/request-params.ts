import { canonicalJson, type ModelRequest } from '@spine/protocol';

// The parameters that close a recorded request after its messages, shared by the message
// chain (canonical.ts) and the legacy running hash (canonical-legacy.ts).

/** The parameters of a request besides its messages; their canonical JSON ends the request. */
export interface RequestParams {
  model: string;
  provider: string;
  systemHash: string;
  toolsHash: string;
  sessionId?: string;
  maxOutputTokens?: number;
  reasoning?: ModelRequest['reasoning'];
  imageFallback?: ModelRequest['imageFallback'];
}

/** Hashes of one request: the whole request, and the messages part alone. */
export interface RequestDigest {
  requestHash: string;
  messagesHash: string;
}

/** The parameters a recorded `request/header` carries (what replay hashes after the messages). */
export function paramsOfHeader(header: RequestParams): RequestParams {
  const params: RequestParams = {
    model: header.model,
    provider: header.provider,
    systemHash: header.systemHash,
    toolsHash: header.toolsHash,
  };
  if (header.sessionId !== undefined) params.sessionId = header.sessionId;
  if (header.maxOutputTokens !== undefined) params.maxOutputTokens = header.maxOutputTokens;
  if (header.reasoning !== undefined) params.reasoning = header.reasoning;
  // Absent in headers written before it was recorded: their hashes stay as they were.
  if (header.imageFallback !== undefined) params.imageFallback = header.imageFallback;
  return params;
}

/** The canonical JSON of `params`. */
export function tailText(params: RequestParams): string {
  return canonicalJson(params);
}

/** True when two parameter sets have the same canonical form. */
export function sameParams(a: RequestParams, b: RequestParams): boolean {
  const x = a.reasoning;
  const y = b.reasoning;
  return (
    (x === undefined
      ? y === undefined
      : y !== undefined && canonicalJson(x) === canonicalJson(y)) &&
    a.model === b.model &&
    a.provider === b.provider &&
    a.systemHash === b.systemHash &&
    a.toolsHash === b.toolsHash &&
    a.sessionId === b.sessionId &&
    a.maxOutputTokens === b.maxOutputTokens &&
    a.imageFallback === b.imageFallback
  );
}

/** A copy of `params` that later changes to the caller's objects cannot reach. */
export function copyParams(params: RequestParams): RequestParams {
  return params.reasoning ? { ...params, reasoning: { ...params.reasoning } } : { ...params };
}
