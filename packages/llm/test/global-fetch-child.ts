// Child process of global-fetch.test.ts: a process whose global dispatcher is Node's built-in
// one (set by a `fetch()` before this package loads) streams an answer from both clients.
import { createServer } from 'node:http';

const server = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const { port } = server.address() as { port: number };
if (process.argv[2] === 'fetch-first') await (await fetch(`http://127.0.0.1:${port}/`)).text();
server.close();

const { createAnthropicModel, createOpenAICompatibleModel } = await import('../src/index.js');
const { createScriptedModelServer } = await import('../src/testing.js');
const model = await createScriptedModelServer({ replies: [{ text: 'one' }, { text: 'two' }] });
const clients = [
  createOpenAICompatibleModel({ baseUrl: model.baseUrl, apiKey: 'loopback' }),
  createAnthropicModel({ baseUrl: model.baseUrl, apiKey: 'loopback' }),
];
for (const client of clients) {
  let text = '';
  const request = { model: 'deepseek-chat', system: '', messages: [], tools: [] };
  request.messages = [{ role: 'user', content: 'hi' }] as never;
  for await (const event of client.stream(request))
    if (event.type === 'text-delta') text += event.text;
  console.log(`answer: ${text}`);
}
await model.close();
