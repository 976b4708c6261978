// A `domains:` network command: curl of an allowed local HTTPS host through the filtering proxy
// (forwarder in the sandbox, multiplexed link, host proxy) against the same curl run directly on the
// host. Reports the per-request overhead (a loop of requests inside one command) and the one-off
// cost of a domains command (forwarder start). Informational: no pass threshold beyond working.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallPart } from '@spine/protocol';
import { createBashTool, createBwrapSandbox, createToolRuntime } from '../src/index.js';

const REQUESTS = 20;
const RUNS = 5;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-network-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=allowed.test', '-addext', 'subjectAltName=DNS:allowed.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' }); // biome-ignore format: argv
const server = createServer(
  { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
  (_request, response) => response.end('ok\n'),
);
await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
const port = (server.address() as AddressInfo).port;
const backend = createBwrapSandbox({
  network: { lookup: async () => ['127.0.0.1'], checkAddress: () => undefined },
});
const runtime = (sandbox: 'workspace-write' | 'danger-full-access') =>
  createToolRuntime({
    cwd: dir,
    sandbox,
    approval: 'never-ask',
    tools: [
      createBashTool({
        cwd: dir,
        sandboxBackend: backend,
        network: { domains: [`allowed.test:${port}`] },
      }),
    ],
  });
const proxied = runtime('workspace-write');
const direct = runtime('danger-full-access');
const loop = (extra: string, count: number) =>
  `for i in $(seq ${count}); do curl -sS --cacert cert.pem ${extra} https://allowed.test:${port}/ >/dev/null || exit 1; done`;

async function timed(target: typeof proxied, command: string): Promise<number> {
  const call: ToolCallPart = {
    type: 'tool-call',
    id: 'n',
    name: 'bash',
    arguments: JSON.stringify({ command }),
  };
  const started = performance.now();
  const [result] = await target.run([call]);
  const elapsed = performance.now() - started;
  if (result?.isError) throw new Error(`network bench command failed: ${result.content}`);
  return elapsed;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = {
  proxiedOne: [] as number[],
  directOne: [] as number[],
  proxiedLoop: [] as number[],
  directLoop: [] as number[],
};
const resolveFlag = `--resolve allowed.test:${port}:127.0.0.1`;
try {
  for (let run = 0; run < RUNS; run++) {
    figures.directOne.push(await timed(direct, loop(resolveFlag, 1)));
    figures.proxiedOne.push(await timed(proxied, loop('', 1)));
    figures.directLoop.push(await timed(direct, loop(resolveFlag, REQUESTS)));
    figures.proxiedLoop.push(await timed(proxied, loop('', REQUESTS)));
  }
} finally {
  backend.close?.();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
const perRequest = (median(figures.proxiedLoop) - median(figures.proxiedOne)) / (REQUESTS - 1);
const perRequestDirect = (median(figures.directLoop) - median(figures.directOne)) / (REQUESTS - 1);
console.log(
  JSON.stringify({
    bench: 'tool-runtime/sandbox-network',
    requests: REQUESTS,
    runs: RUNS,
    directOneMs: Number(median(figures.directOne).toFixed(1)),
    proxiedOneMs: Number(median(figures.proxiedOne).toFixed(1)),
    directPerRequestMs: Number(perRequestDirect.toFixed(2)),
    proxiedPerRequestMs: Number(perRequest.toFixed(2)),
    overheadPerRequestMs: Number((perRequest - perRequestDirect).toFixed(2)),
    perRequestRatio: Number((perRequest / perRequestDirect).toFixed(2)),
    commandOverheadMs: Number((median(figures.proxiedOne) - median(figures.directOne)).toFixed(1)),
    pass: true,
  }),
);
