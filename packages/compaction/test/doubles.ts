// Summarisers for tests: real implementations of the protocol interface with scripted behaviour.
import type { SessionLog, SummarizationInput, Summarizer } from '@spine/protocol';

/** A summariser that answers with the five sections naming how many messages it saw. */
export function scriptedSummarizer(options: { delayMs?: number; fail?: Error } = {}): Summarizer & {
  calls: SummarizationInput[];
} {
  const calls: SummarizationInput[] = [];
  return {
    specificationVersion: 1,
    calls,
    async summarize(input, callOptions = {}) {
      calls.push(input);
      if (options.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, options.delayMs);
          callOptions.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(callOptions.signal?.reason ?? new Error('aborted'));
          });
        });
      }
      if (options.fail) throw options.fail;
      return {
        summary: `### Primary Request and Intent\nSummarised ${input.messages.length} messages.\n### Files and Code\n-\n### Errors and Fixes\n-\n### Next Step\n-\n### Critical Context\n-`,
      };
    },
  };
}

/** Wraps a session so that appending `type` (optionally only with a replace) throws. */
export function failingAppends(session: SessionLog, type: string, onlyReplace = false): SessionLog {
  return new Proxy(session, {
    get(target, property, receiver) {
      if (property === 'append') {
        return (eventType: string, body: unknown, options?: { surfaceOp?: { op: string } }) => {
          if (eventType === type && (!onlyReplace || options?.surfaceOp?.op === 'replace')) {
            throw new Error(`injected failure appending ${type}`);
          }
          return target.append(eventType, body, options as never);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
