import { lookup } from 'node:dns/promises';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  /** Address text (dotted quad or IPv6). */
  address: string;
  /** 4 or 6. */
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has. The fetch provider checks all of them and pins
 * the connection to one, so a resolver is asked exactly once per hop.
 */
export type Resolver = (
  hostname: string,
  options: { signal?: AbortSignal },
) => Promise<ResolvedAddress[]>;

/**
 * The default resolver: the system's `getaddrinfo` (via `dns.lookup`, all addresses, in the
 * order the system returns them). Stops waiting when `signal` aborts.
 */
export const systemResolver: Resolver = async (hostname, options) => {
  const { signal } = options;
  signal?.throwIfAborted();
  const pending = lookup(hostname, { all: true, verbatim: true });
  if (!signal) return normalise(await pending);
  return new Promise<ResolvedAddress[]>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    pending
      .then(
        (answers) => resolve(normalise(answers)),
        (error: unknown) => reject(error),
      )
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
};

function normalise(answers: { address: string; family: number }[]): ResolvedAddress[] {
  return answers.map((answer) => ({
    address: answer.address,
    family: answer.family === 6 ? 6 : 4,
  }));
}
