import { describe, expect, it } from 'vitest';
import { contentKindOf, cutText, decodeBody, parseContentType, sniffKind } from './content.js';

describe('content helpers', () => {
  it('parses media types and charsets', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      mime: 'text/html',
      charset: 'ISO-8859-1',
    });
    expect(parseContentType(undefined)).toEqual({ mime: '' });
  });

  it('classifies what web_fetch accepts', () => {
    expect(contentKindOf('text/html')).toBe('html');
    expect(contentKindOf('application/xhtml+xml')).toBe('html');
    expect(contentKindOf('application/vnd.api+json')).toBe('json');
    expect(contentKindOf('text/csv')).toBe('text');
    expect(contentKindOf('application/rss+xml')).toBe('text');
    for (const refused of [
      'application/pdf',
      'image/png',
      'application/octet-stream',
      'video/mp4',
      'application/zip',
    ]) {
      expect(contentKindOf(refused)).toBeUndefined();
    }
  });

  it('cuts text without splitting a surrogate pair', () => {
    expect(cutText('ab😀cd', 3)).toBe('ab');
    expect(cutText('abc', 5)).toBe('abc');
  });

  it('decodes windows-1252 the way browsers do', () => {
    expect(decodeBody(new Uint8Array([0x93, 0x68, 0x94, 0x96, 0x80]), 'text', 'windows-1252')).toBe(
      '“h”–€',
    );
    expect(decodeBody(new Uint8Array([0xe9]), 'text', 'latin1')).toBe('é');
    expect(decodeBody(new Uint8Array([0xc3, 0xa9]), 'text', 'no-such-charset')).toBe('é');
  });

  it('sniffs undeclared bodies', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(sniffKind(bytes('  <!doctype html><p>x'))).toBe('html');
    expect(sniffKind(bytes('plain words, ünïcode'))).toBe('text');
    expect(sniffKind(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]))).toBeUndefined();
    expect(sniffKind(new Uint8Array([0xff, 0xfe, 0x41]))).toBeUndefined();
    const long = new Uint8Array([...bytes('a'.repeat(1023)), 0xc3, 0xa9]);
    expect(sniffKind(long)).toBe('text');
  });
});
