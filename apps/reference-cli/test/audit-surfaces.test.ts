// The read-only audit surfaces on logs that are not what they should be: `spine serve` on corrupt,
// unreadable, non-file and empty logs (an HTML error page with a status, never a dropped
// connection), `spine sessions` with a bad file among good ones, an altered log in the HTML audit,
// control characters in the Markdown export and in file names, and a port already in use.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeChainedSession } from './chained-session.js';
import { sampleSessionEvents } from './fixtures.js';
import { HOSTILE_CONTROLS } from './hostile-session.js';
import { BIN, isolatedEnv, runCli, writeSessionFile } from './run-cli.js';

/** Raw C0/C1/bidi characters a terminal would act on (tab and line feed excluded). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function get(
  url: URL,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
      );
    })
      .on('error', reject)
      .end();
  });
}

function startServe(
  env: NodeJS.ProcessEnv,
  args: string[],
  spawnOptions: { uid?: number; gid?: number } = {},
): Promise<{ child: ChildProcess; url: URL; out: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...spawnOptions,
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
      if (line) resolve({ child, url: new URL(line[0]), out: () => out });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('exit', (code) => reject(new Error(`spine serve exited ${code}: ${out}`)));
  });
}

describe('spine serve on logs it cannot show', { timeout: 180_000 }, () => {
  const setup = isolatedEnv();
  let serve: Awaited<ReturnType<typeof startServe>>;
  const at = (path: string): URL => {
    const url = new URL(serve.url.href);
    url.pathname = path;
    return url;
  };

  beforeAll(async () => {
    const dir = setup.sessionDir;
    mkdirSync(dir, { recursive: true });
    writeSessionFile(dir, 'good', sampleSessionEvents('good'));
    // A seq gap: event 3 removed.
    writeSessionFile(
      dir,
      'gap',
      sampleSessionEvents('gap').filter((event) => (event as { seq: number }).seq !== 3),
    );
    mkdirSync(join(dir, 'dir.jsonl'));
    symlinkSync('/etc/passwd', join(dir, 'passwd.jsonl'));
    writeFileSync(join(dir, 'empty.jsonl'), '');
    writeFileSync(join(dir, 'a b.jsonl'), readFileSync(join(dir, 'good.jsonl')));
    // A log whose audit page is megabytes long before the gap at its end.
    const [header] = sampleSessionEvents('late-gap') as Array<{ seq: number }>;
    const long: object[] = [header as object];
    for (let seq = 2; seq <= 2001; seq++)
      long.push({
        seq,
        type: 'user/message',
        at: '2026-11-30T09:00:00.000Z',
        turn: 1,
        body: { content: `message ${seq} ${'x'.repeat(1000)}`, source: 'user' },
        surfaceOp: { op: 'append' },
      });
    long.push({ seq: 2003, type: 'turn/start', at: '2026-11-30T09:00:00.000Z', turn: 2, body: {} });
    writeSessionFile(dir, 'late-gap', long);
    // A page of 200 events that is over a megabyte before the gap at event 190.
    const wide = long
      .slice(0, 188)
      .map((event) =>
        (event as { type: string }).type === 'user/message'
          ? { ...event, body: { content: `wide ${'y'.repeat(8000)}`, source: 'user' } }
          : event,
      );
    wide.push({ seq: 190, type: 'turn/start', at: '2026-11-30T09:00:00.000Z', turn: 2, body: {} });
    writeSessionFile(dir, 'wide-gap', wide);
    serve = await startServe(setup.env, ['--session-dir', dir]);
  });
  afterAll(() => {
    serve?.child.kill('SIGTERM');
  });

  it('answers each with an HTML error page, a 4xx status and the page headers, and keeps serving', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/s/gap', /SESSION_CORRUPT/],
      ['/s/gap/audit', /SESSION_CORRUPT/],
      ['/s/dir', /EISDIR/],
      ['/s/passwd/audit', /SESSION_CORRUPT|not a session/i],
      ['/s/empty/audit', /SESSION_CORRUPT|empty/i],
    ];
    for (const [path, message] of cases) {
      const page = await get(at(path));
      expect(page.status, path).toBeGreaterThanOrEqual(400);
      expect(page.status, path).toBeLessThan(600);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.body, path).toMatch(/<p class="bad" id="error">/);
      expect(page.body, path).toMatch(message);
      // No directory of the machine in the page.
      expect(page.body).not.toContain(setup.sessionDir);
    }
    expect((await get(at('/s/good'))).status).toBe(200);
    const list = await get(at('/'));
    expect(list.status).toBe(200);
    expect(list.body).toContain('data-id="good"');
    expect(list.body).toMatch(/dir\.jsonl<\/code>: a directory/);
    expect(list.body).toMatch(/a b\.jsonl<\/code>: not a valid session id/);
    expect(serve.out()).not.toMatch(/Error|EISDIR|SESSION_CORRUPT/);
  });

  it('refuses a long log with a gap near its end before sending any of it', async () => {
    const page = await get(at('/s/late-gap/audit'));
    expect(page.status).toBe(422);
    expect(page.body).not.toContain('message 2001 ');
    expect(page.body).toMatch(
      /<p class="bad" id="error">late-gap\.jsonl:2002: seq 2003 where 2002 was expected[^<]*\[SESSION_CORRUPT\]<\/p>/,
    );
  });

  it('ends a page already streaming with the reason it stopped, as a complete document', async () => {
    const page = await get(at('/s/wide-gap'));
    expect(page.status).toBe(200);
    expect(page.body.length).toBeGreaterThan(1024 * 1024);
    expect(page.body).toMatch(
      /<p class="bad" id="error">The page stops here: [^<]*seq 190 where 189 was expected[^<]*\[SESSION_CORRUPT\]<\/p><\/main><\/body><\/html>\n$/,
    );
  });

  it('says a port in use is in use (exit 2)', async () => {
    const second = await runCli(['serve', '--port', serve.url.port], { env: setup.env });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`port ${serve.url.port} is already in use`);
    expect(second.stderr).not.toContain('file system');
  });
});

describe('spine serve and spine sessions with an unreadable file', { timeout: 180_000 }, () => {
  // As root nothing is unreadable: the CLI runs as nobody (65534) then.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

  it('lists the readable sessions and marks the unreadable one with the reason', async () => {
    const setup = isolatedEnv();
    const dir = setup.sessionDir;
    mkdirSync(dir, { recursive: true });
    writeSessionFile(dir, 'good', sampleSessionEvents('good'));
    writeSessionFile(dir, 'locked', sampleSessionEvents('locked'));
    for (const path of [join(setup.root, '..'), setup.root, dir]) chmodSync(path, 0o777);
    chmodSync(join(dir, 'good.jsonl'), 0o644);
    chmodSync(join(dir, 'locked.jsonl'), 0o600);
    if ('uid' in asNobody) mkdirSync(join(setup.root, 'config'), { mode: 0o777 });
    const listed = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn(process.execPath, [BIN, 'sessions'], { env: setup.env, ...asNobody });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk;
        });
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
        });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^good +/m);
    expect(listed.stdout).toContain(
      '! locked.jsonl: could not be read: permission denied (EACCES)',
    );
    const serve = await startServe(setup.env, [], asNobody);
    try {
      const list = await get(serve.url);
      expect(list.status).toBe(200);
      expect(list.body).toContain('data-id="good"');
      expect(list.body).toContain(
        '<code>locked.jsonl</code>: could not be read: permission denied (EACCES)',
      );
      const page = new URL(serve.url.href);
      page.pathname = '/s/locked';
      const locked = await get(page);
      expect(locked.status).toBe(403);
      expect(locked.body).toContain('permission denied (EACCES)');
    } finally {
      serve.child.kill('SIGTERM');
    }
  });
});

describe('the audit surfaces on hostile logs', { timeout: 180_000 }, () => {
  it('puts the altered event of an edited log at the top of the HTML audit', async () => {
    const { env, sessionDir } = isolatedEnv();
    await writeChainedSession(sessionDir, 'edited');
    const path = join(sessionDir, 'edited.jsonl');
    writeFileSync(path, readFileSync(path, 'utf8').replace('ALL-DONE', 'ALL-D0NE'));
    const verify = await runCli(['verify', 'edited', '--json'], { env });
    const problem = JSON.parse(verify.stdout).problem as { seq: number };
    const out = join(sessionDir, '..', 'edited.html');
    const exported = await runCli(['export', 'edited', '--format', 'html', '-o', out], { env });
    expect(exported.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    const banner = /<p class="bad chain" id="chain"[^>]*>(.*?)<\/p>/.exec(html)?.[1] ?? '';
    expect(banner).toContain(`TAMPERED: the log's hash chain breaks at`);
    expect(banner).toContain(`event ${problem.seq}</a>`);
    // Before the timeline, not after it.
    expect(html.indexOf('id="chain"')).toBeLessThan(html.indexOf('id="timeline"'));

    await writeChainedSession(sessionDir, 'intact');
    await runCli(['export', 'intact', '--format', 'html', '-o', out], { env });
    expect(readFileSync(out, 'utf8')).toMatch(
      /<p class="ok chain" id="chain" data-ok="true">hash chain verified: all \d+ events chain/,
    );
  });

  it('writes no raw control character in the Markdown export, to a file or a pipe', async () => {
    const { env, sessionDir } = isolatedEnv();
    const events = sampleSessionEvents('controls') as Array<{ type: string; body: unknown }>;
    const user = events.find((event) => event.type === 'user/message') as { body: object };
    user.body = { ...user.body, content: `look: ${HOSTILE_CONTROLS}\u0000nul` };
    mkdirSync(sessionDir, { recursive: true });
    writeSessionFile(sessionDir, 'controls', events);
    const out = join(sessionDir, '..', 'controls.md');
    expect((await runCli(['export', 'controls', '-o', out], { env })).code).toBe(0);
    const piped = await runCli(['export', 'controls'], { env });
    for (const text of [readFileSync(out, 'utf8'), piped.stdout]) {
      expect(text).not.toMatch(RAW_CONTROL);
      expect(text).toContain('red:\\x1b[31mRED\\x1b[0m c1:\\x9b2J bidi:\\u202eevil');
      expect(text).toContain('\\x07');
      expect(text).toContain('\\x00nul');
      expect(text).toContain('\n');
    }
  });

  it('escapes control characters of file names in spine sessions and marks names no command opens', async () => {
    const { env, sessionDir } = isolatedEnv();
    mkdirSync(sessionDir, { recursive: true });
    writeSessionFile(sessionDir, 'good', sampleSessionEvents('good'));
    for (const name of ['x\u001b]0;PWN\u0007\u001b[2Jy', 'a b', 'ünï', '.hidden'])
      writeSessionFile(sessionDir, name, sampleSessionEvents(name));
    const listed = await runCli(['sessions'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toMatch(RAW_CONTROL);
    expect(listed.stdout).toMatch(/^good +/m);
    for (const name of ['x\\x1b]0;PWN\\x07\\x1b[2Jy', 'a b', 'ünï', '.hidden'])
      expect(listed.stdout).toContain(`! ${name}.jsonl: not a valid session id`);
    const json = await runCli(['sessions', '--json'], { env });
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual(['good']);
  });
});

describe('attached images on every audit surface', { timeout: 180_000 }, () => {
  it('shows a marker with type, size and sha256 prefix in show, the Markdown and the HTML page', async () => {
    const { env, sessionDir } = isolatedEnv();
    const image = (sha: string, size: number) => ({
      type: 'image',
      mediaType: 'image/png',
      sha256: sha.repeat(64),
      size,
      width: 640,
      height: 480,
    });
    const events = sampleSessionEvents('pictures') as Array<{ type: string; body: object }>;
    const user = events.find((event) => event.type === 'user/message') as { body: object };
    user.body = { ...user.body, images: [image('a', 14_540)] };
    const result = events.find((event) => event.type === 'tool/result') as { body: object };
    result.body = { ...result.body, images: [image('b', 900)] };
    mkdirSync(sessionDir, { recursive: true });
    writeSessionFile(sessionDir, 'pictures', events);
    const userMarker = `[image: image/png, 640×480, 14.2 KB, sha256 ${'a'.repeat(12)}]`;
    const toolMarker = `[image: image/png, 640×480, 900 B, sha256 ${'b'.repeat(12)}]`;
    const shown = await runCli(['show', 'pictures'], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(userMarker);
    expect(shown.stdout).toContain(toolMarker);
    const markdown = await runCli(['export', 'pictures'], { env });
    expect(markdown.stdout).toContain(userMarker);
    expect(markdown.stdout).toContain(toolMarker);
    const html = await runCli(['export', 'pictures', '--format', 'html'], { env });
    expect(html.stdout).toContain(
      `<li class="image" data-sha256="${'a'.repeat(64)}">${userMarker}</li>`,
    );
    expect(html.stdout).toContain(
      `<li class="image" data-sha256="${'b'.repeat(64)}">${toolMarker}</li>`,
    );
  });
});
