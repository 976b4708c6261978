import { SpineError } from '@spine/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from './exit-codes.js';
import { adviceFor, exitCodeOf, noteSession, reportError } from './report-error.js';

function captured(run: () => void): string {
  let text = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return text;
}

afterEach(() => vi.restoreAllMocks());

describe('exit codes and error reports', () => {
  it('maps an overflow compaction cannot fix to 3 with advice, not to an internal error', () => {
    for (const code of ['CONTEXT_OVERFLOW', 'COMPACTION_FAILED', 'COMPACTION_DISABLED'] as const) {
      const error = new SpineError({ code, message: 'too big' });
      expect(exitCodeOf(error)).toBe(EXIT_CODES.model);
      expect(adviceFor(error)).toMatch(/bigger window[\s\S]*\/compact[\s\S]*narrower tool result/);
      expect(captured(() => reportError(error))).not.toMatch(/bug/);
    }
  });

  it('maps file system refusals and unusable sessions to 2 with what to check', () => {
    const refused = Object.assign(new Error("EEXIST: file already exists, mkdir '/x'"), {
      code: 'EEXIST',
      syscall: 'mkdir',
      path: '/x',
    });
    expect(exitCodeOf(refused)).toBe(EXIT_CODES.usage);
    expect(captured(() => reportError(refused))).toMatch(
      /could not mkdir \/x: it exists and is not a directory \(EEXIST\); check that path/,
    );
    const listen = Object.assign(new Error('listen EADDRINUSE: address already in use'), {
      code: 'EADDRINUSE',
      syscall: 'listen',
      address: '127.0.0.1',
      port: 8080,
    });
    expect(captured(() => reportError(listen))).toMatch(
      /could not listen on 127\.0\.0\.1:8080: the address is already in use \(EADDRINUSE\)/,
    );
    for (const code of ['SESSION_CORRUPT', 'STORE_UNAVAILABLE', 'SESSION_LOCKED'] as const)
      expect(exitCodeOf(new SpineError({ code, message: 'x' }))).toBe(EXIT_CODES.usage);
  });

  it('reports a real bug as exit 1 with where to report it and the session id', () => {
    noteSession('20261201-000000-abcdef', '/sessions');
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(exitCodeOf(bug)).toBe(EXIT_CODES.internal);
    const text = captured(() => reportError(bug));
    expect(text).toMatch(/unexpected internal error: TypeError/);
    expect(text).toMatch(/This is a bug in spine: report it on the Spine issue tracker/);
    expect(text).toContain('session 20261201-000000-abcdef');
    const internal = captured(() =>
      reportError(new SpineError({ code: 'INTERNAL', message: 'the scheduler failed' })),
    );
    expect(internal).toContain('session 20261201-000000-abcdef');
  });

  it('survives a closed stderr', () => {
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => {
      throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    });
    expect(() => reportError(new Error('x'))).not.toThrow();
    spy.mockRestore();
  });
});
