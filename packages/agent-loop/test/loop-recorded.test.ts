import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionEvent } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { detectLoops } from '../src/index.js';

// No false detection over what the project has recorded: its recorded sessions, the answers in its
// recorded provider streams, and, as long answers of prose, tables and code, its own Markdown
// documents (each read as one assistant answer, and all of them as the answers of one turn).

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

/** The answer text a recorded provider stream carries (OpenAI-style or Anthropic chunks). */
function streamText(path: string): string {
  let text = '';
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    const chunk = JSON.parse(line) as {
      choices?: { delta?: { content?: unknown } }[];
      delta?: { type?: string; text?: unknown };
    };
    const content = chunk.choices?.[0]?.delta?.content;
    if (typeof content === 'string') text += content;
    if (chunk.delta?.type === 'text_delta' && typeof chunk.delta.text === 'string') {
      text += chunk.delta.text;
    }
  }
  return text;
}

/** One turn whose steps each answer with one of `texts` and one distinct tool call. */
function answersTurn(texts: readonly string[]): SessionEvent[] {
  const events: SessionEvent[] = [];
  const add = (type: string, body: unknown, step: number): void => {
    events.push({ seq: events.length + 1, type, at: '', turn: 1, step, body });
  };
  add('turn/start', {}, 0);
  texts.forEach((text, index) => {
    const step = index + 1;
    const id = `call_${step}`;
    add(
      'assistant/message',
      {
        content: [
          { type: 'text', text },
          { type: 'tool-call', id, name: 'read', arguments: JSON.stringify({ path: `f${step}` }) },
        ],
        finishReason: 'tool-calls',
      },
      step,
    );
    add(
      'tool/result',
      { toolCallId: id, toolName: 'read', content: `file ${step}`, isError: false },
      step,
    );
    add('step/end', {}, step);
  });
  return events;
}

describe('loop detection over recorded material', () => {
  it('finds no loop in the recorded sessions of the repository', () => {
    const sessions = filesUnder(root, '.jsonl').filter((path) =>
      readFileSync(path, 'utf8').startsWith('{"seq":1,"type":"session/header"'),
    );
    expect(sessions.length).toBeGreaterThan(0);
    for (const path of sessions) {
      const events = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as SessionEvent);
      expect(detectLoops(events), path).toEqual([]);
    }
  });

  it('finds no loop in the answers of the recorded provider streams', () => {
    const texts = filesUnder(join(root, 'packages/llm/test/fixtures'), '.chunks.txt')
      .map(streamText)
      .filter((text) => text.length > 0);
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) expect(detectLoops(answersTurn([text])), text).toEqual([]);
    expect(detectLoops(answersTurn(texts))).toEqual([]);
  });

  it("finds no loop in the project's own documents read as long answers", () => {
    const documents = [
      ...filesUnder(join(root, 'docs'), '.md'),
      ...filesUnder(join(root, 'packages'), 'README.md'),
      join(root, 'apps/reference-cli/README.md'),
    ];
    expect(documents.length).toBeGreaterThan(10);
    const texts = documents.map((path) => readFileSync(path, 'utf8'));
    for (const [index, text] of texts.entries()) {
      expect(detectLoops(answersTurn([text])), documents[index]).toEqual([]);
    }
    expect(detectLoops(answersTurn(texts))).toEqual([]);
  });
});
