// The client's messages as the SDK should see them. Two gaps of the SDK's connection are closed
// here: it dispatches every message at once, so a request pipelined right after `initialize` was
// refused ("must be initialized") before the initialize result went out; and it closes the
// connection the moment the client's input ends, dropping the answers to requests still in
// flight (`printf '{…initialize…}\n' | spine acp` printed nothing).

/** A JSON-RPC message as the SDK's message streams carry it. */
type Message = Record<string, unknown>;

/** The message streams of one connection, as the SDK takes them. */
export interface MessageStream {
  readable: ReadableStream<Message>;
  writable: WritableStream<Message>;
}

/** How long answers to requests in flight may take once the client's input ended. */
export const DRAIN_TIMEOUT_MS = 30_000;

function idKey(message: Message): string | undefined {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}

/**
 * Wraps `stream` so that messages after an `initialize` request wait until its answer is written,
 * and the end of the client's input reaches the SDK only once every request read before it has
 * been answered (or `drainTimeoutMs` passed). `onInputEnd` is called when the input ends, to
 * cancel running turns so their prompts are answered promptly.
 */
export function orderedStream(
  stream: MessageStream,
  options: { onInputEnd: () => void; drainTimeoutMs?: number },
): MessageStream {
  const pending = new Set<string>();
  const waiters = new Map<string, () => void>();
  let settled: (() => void) | undefined;
  const answered = (key: string): void => {
    pending.delete(key);
    waiters.get(key)?.();
    waiters.delete(key);
    if (pending.size === 0) settled?.();
  };
  let gate: Promise<void> | undefined;
  const source = stream.readable.getReader();
  const readable = new ReadableStream<Message>({
    async pull(controller) {
      if (gate) await gate;
      gate = undefined;
      const { value, done } = await source.read();
      if (done) {
        options.onInputEnd();
        if (pending.size > 0) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((resolve) => {
            settled = resolve;
            timer = setTimeout(resolve, options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
          });
          clearTimeout(timer);
        }
        controller.close();
        return;
      }
      const key =
        typeof value === 'object' && value !== null && typeof value.method === 'string'
          ? idKey(value)
          : undefined;
      if (key !== undefined) {
        pending.add(key);
        if (value.method === 'initialize')
          gate = new Promise<void>((resolve) => waiters.set(key, resolve));
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  const sink = stream.writable.getWriter();
  const writable = new WritableStream<Message>({
    async write(message) {
      await sink.write(message);
      // A response (no method) answers the request with its id, once it is written.
      const key = typeof message.method === 'string' ? undefined : idKey(message);
      if (key !== undefined) answered(key);
    },
    close() {
      return sink.close();
    },
    abort(reason) {
      return sink.abort(reason);
    },
  });
  return { readable, writable };
}
