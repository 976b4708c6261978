// The dispatcher a request uses when the caller passed none. undici keeps its global dispatcher
// on `globalThis` under a key Node's built-in fetch shares: a process that called `fetch()` before
// this package loaded (an MCP client over HTTP, a PostgreSQL driver probing `Response`, the
// embedding application) holds Node's bundled, older undici Agent there, which rejects the
// handler this package dispatches with ("invalid onError method"). So the global dispatcher is
// used only when it is this undici's own (a proxy or pool the application set with
// `setGlobalDispatcher`); otherwise requests go through one private Agent.
import { Agent, Dispatcher, getGlobalDispatcher } from 'undici';

let own: Agent | undefined;

/** The global dispatcher when it is this package's undici, else a private Agent. */
export function defaultDispatcher(): Dispatcher {
  const global = getGlobalDispatcher();
  if (global instanceof Dispatcher) return global;
  own ??= new Agent();
  return own;
}
