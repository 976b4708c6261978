import { describe, expect, it } from 'vitest';
import { UrlRefusedError } from './errors.js';
import { checkUrl } from './url-policy.js';

function reasonOf(url: string, options = {}): string | undefined {
  try {
    checkUrl(url, options);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UrlRefusedError);
    return (error as UrlRefusedError).reason;
  }
}

describe('checkUrl', () => {
  it('accepts public https URLs and normalises the host', () => {
    const checked = checkUrl('https://Example.COM./docs?q=1#top');
    expect(checked.hostname).toBe('example.com');
    expect(checked.url.pathname).toBe('/docs');
    expect(checkUrl('https://93.184.216.34:8443/').literal?.address).toBe('93.184.216.34');
    expect(checkUrl('https://[2606:4700::1111]/').hostname).toBe('2606:4700::1111');
    expect(checkUrl('https://bücher.example/').hostname).toBe('xn--bcher-kva.example');
  });

  it('names the reason of each refusal', () => {
    expect(reasonOf('http://example.com/')).toBe('scheme');
    expect(reasonOf('HTTPS://user@example.com/')).toBe('credentials');
    expect(reasonOf('https://0x7f.1/')).toBe('ip-literal-form');
    expect(reasonOf('https://10.0.0.1/')).toBe('private');
    expect(reasonOf('https://intranet/')).toBe('single-label');
    expect(reasonOf('https://a.localhost/')).toBe('local-name');
    expect(reasonOf('https://ex%61mple.com/')).toBe('obfuscated-host');
    expect(reasonOf('https://example.com/', { maxUrlLength: 10 })).toBe('too-long');
    expect(reasonOf('https://[::1/')).toBe('malformed');
  });

  it('lets only the named seam host through the name checks', () => {
    expect(
      checkUrl('https://fixture.test:8443/', { allowedHosts: ['fixture.test'] }).hostname,
    ).toBe('fixture.test');
    expect(reasonOf('https://127.0.0.1/', { allowedHosts: ['fixture.test'] })).toBe('loopback');
  });

  it('puts the advice in the error message', () => {
    expect(() => checkUrl('file:///etc/passwd')).toThrow(
      /Only public https:\/\/ URLs can be fetched/,
    );
  });
});
