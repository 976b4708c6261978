// A 2 MB image attached to a session: what building and encoding the request costs against the
// same request without it (baseline, same run), how much the log and the blob folder grow, and
// that a second request carrying the same image adds no image bytes anywhere (`pass`).
// Real parts: a JSONL session, the agent loop's RequestBuilder (recorded request/header), the
// OpenAI-compatible and Anthropic encoders reading the session's blob folder.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestBuilder, SystemPrompt } from '@spine/agent-loop';
import { createAnthropicModel, createOpenAICompatibleModel } from '@spine/llm';
import { checkImage, type ImagePart, type ModelClient } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { makePng } from '@spine/test-utils';

const ROUNDS = 7;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

function folderBytes(path: string): number {
  try {
    return readdirSync(path).reduce((sum, name) => sum + statSync(join(path, name)).size, 0);
  } catch {
    return 0;
  }
}

/** One session's turn: append the input, build (and record) the request, encode it per provider. */
async function run(withImage: boolean): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'spine-bench-images-'));
  try {
    const png = makePng(820, 820, { noise: true });
    const session = await Session.create({ store: createJsonlStore({ dir, fsync: 'never' }) });
    const log = join(dir, `${session.id}.jsonl`);
    const blobs = join(dir, `${session.id}.blobs`);
    const builder = new RequestBuilder(session);
    const prompt = new SystemPrompt('You are a coding agent.');
    const models: Record<string, ModelClient> = {
      openai: createOpenAICompatibleModel({
        baseUrl: 'http://127.0.0.1:9',
        apiKey: 'bench',
        provider: 'openai',
      }),
      anthropic: createAnthropicModel({ apiKey: 'bench' }),
    };
    const ids: Record<string, string> = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-5' };
    const figures: Record<string, number> = { imageBytes: png.length };
    const send = (turn: number, label: string): void => {
      const logBefore = statSync(log).size;
      const blobsBefore = folderBytes(blobs);
      const started = performance.now();
      let images: ImagePart[] | undefined;
      if (withImage) {
        const header = checkImage(png, { what: 'shot.png' });
        const sha256 = session.blobs!.put(png);
        images = [
          {
            type: 'image',
            sha256,
            mediaType: header.mediaType,
            size: header.size,
            width: header.width,
            height: header.height,
          },
        ];
      }
      session.append(
        'user/message',
        { content: `look at this (${turn})`, source: 'user', ...(images ? { images } : {}) },
        { turn, surfaceOp: { op: 'append' } },
      );
      const snapshot = prompt.assemble({ tools: [] });
      const built = builder.buildRequest({
        snapshot,
        modelId: ids.openai!,
        provider: 'openai',
        turn,
        step: 1,
        attempt: 1,
      });
      figures[`${label}BuildMs`] = performance.now() - started;
      for (const [name, model] of Object.entries(models)) {
        const request = { ...built.request, model: ids[name]! };
        const cold: number[] = [];
        let bytes = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const fresh =
            name === 'openai'
              ? createOpenAICompatibleModel({
                  baseUrl: 'http://127.0.0.1:9',
                  apiKey: 'bench',
                  provider: 'openai',
                })
              : createAnthropicModel({ apiKey: 'bench' });
          const t0 = performance.now();
          bytes = fresh.encodeRequest!(request).length;
          cold.push(performance.now() - t0);
        }
        model.encodeRequest!(request);
        const warm: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const t0 = performance.now();
          model.encodeRequest!(request);
          warm.push(performance.now() - t0);
        }
        figures[`${label}${name}EncodeColdMs`] = median(cold);
        figures[`${label}${name}EncodeWarmMs`] = median(warm);
        figures[`${label}${name}BodyBytes`] = bytes;
      }
      session.append(
        'assistant/message',
        { content: [{ type: 'text', text: 'I see it.' }], finishReason: 'stop' },
        { turn, step: 1, surfaceOp: { op: 'append' } },
      );
      figures[`${label}BlobGrowth`] = folderBytes(blobs) - blobsBefore;
      figures[`${label}LogBefore`] = logBefore;
    };
    send(1, 'first');
    await session.flush();
    figures.firstLogGrowth = statSync(log).size - figures.firstLogBefore!;
    send(2, 'second');
    await session.flush();
    figures.secondLogGrowth = statSync(log).size - figures.secondLogBefore!;
    delete figures.firstLogBefore;
    delete figures.secondLogBefore;
    await session.close();
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const baseline = await run(false);
  const image = await run(true);
  const round = (value: number): number => Number(value.toFixed(3));
  const result = {
    bench: 'cli/images',
    imageBytes: image.imageBytes,
    buildMs: {
      baseline: round(baseline.firstBuildMs!),
      image: round(image.firstBuildMs!),
      secondImage: round(image.secondBuildMs!),
    },
    encodeColdMs: {
      openai: {
        baseline: round(baseline.firstopenaiEncodeColdMs!),
        image: round(image.firstopenaiEncodeColdMs!),
      },
      anthropic: {
        baseline: round(baseline.firstanthropicEncodeColdMs!),
        image: round(image.firstanthropicEncodeColdMs!),
      },
    },
    encodeWarmMs: {
      openai: round(image.secondopenaiEncodeWarmMs!),
      anthropic: round(image.secondanthropicEncodeWarmMs!),
    },
    bodyBytes: { openai: image.firstopenaiBodyBytes, anthropic: image.firstanthropicBodyBytes },
    logGrowth: {
      baselineFirst: baseline.firstLogGrowth,
      imageFirst: image.firstLogGrowth,
      imageSecond: image.secondLogGrowth,
    },
    blobGrowth: { first: image.firstBlobGrowth, second: image.secondBlobGrowth },
    // The same image again: no blob written, and the log grows by what a text turn adds (a
    // reference of ~200 bytes, never the image).
    pass:
      image.secondBlobGrowth === 0 &&
      image.firstBlobGrowth === image.imageBytes &&
      (image.secondLogGrowth as number) < (baseline.firstLogGrowth as number) + 4096,
  };
  console.log(
    `2 MB image: build ${result.buildMs.image} ms (text-only ${result.buildMs.baseline} ms); encode cold openai ${result.encodeColdMs.openai.image} ms, anthropic ${result.encodeColdMs.anthropic.image} ms; log +${result.logGrowth.imageFirst} B then +${result.logGrowth.imageSecond} B; blobs +${result.blobGrowth.first} B then +${result.blobGrowth.second} B`,
  );
  console.log(JSON.stringify(result));
}

await main();
