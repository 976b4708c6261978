// The request/header body the session-log tests append, shaped as the agent loop writes it.

/** A request/header body for `turn`, recording the chain head `chain` when there is one. */
export function requestHeader(
  turn: number,
  chain: { seq: number; h: string } | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    turn,
    step: 1,
    attempt: 1,
    model: 'm',
    provider: 'p',
    systemHash: 'sha256:s',
    toolsHash: 'sha256:t',
    generation: 0,
    messageCount: turn,
    seqs: { ranges: [] },
    addedHashes: [],
    messagesHash: 'sha256:m',
    requestHash: 'sha256:r',
    prefix: { kept: 0, of: 0, extends: true, causes: [] },
  };
  if (chain !== undefined) body.chain = chain;
  return body;
}
