// Streams a reply from DeepSeek: `DEEPSEEK_API_KEY=… npx tsx packages/llm/examples/stream-deepseek.ts`.
// Without the key it says so and exits 0 (CI has no network).
import { createDeepSeekModel, listRemoteModels } from '../src/index.js';

const key = process.env.DEEPSEEK_API_KEY;
if (!key) {
  console.log('Set DEEPSEEK_API_KEY to stream a reply from DeepSeek.');
} else {
  const model = process.env.DEEPSEEK_MODEL ?? 'deepseek-v4-flash';
  const served = await listRemoteModels('https://api.deepseek.com', key, { provider: 'deepseek' });
  if (!served.includes(model))
    console.warn(`warning: ${model} is not in GET /models (${served.join(', ')})`);
  const client = createDeepSeekModel();
  const request = {
    model,
    system: 'Be terse.',
    messages: [{ role: 'user' as const, content: 'Name three prime numbers.' }],
    tools: [],
  };
  for await (const event of client.stream(request)) {
    if (event.type === 'text-delta') process.stdout.write(event.text);
    if (event.type === 'finish') console.log(`\n[${event.finishReason}]`, event.usage);
  }
}
