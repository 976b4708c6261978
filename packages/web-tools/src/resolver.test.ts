import { describe, expect, it } from 'vitest';
import { systemResolver } from './resolver.js';

// Only IP literals are looked up here: getaddrinfo answers them without any query.
describe('systemResolver', () => {
  it('returns every address with its family', async () => {
    expect(await systemResolver('127.0.0.1', {})).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await systemResolver('::1', { signal: new AbortController().signal })).toEqual([
      { address: '::1', family: 6 },
    ]);
  });

  it('does not start a lookup once the signal has fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(systemResolver('127.0.0.1', { signal: controller.signal })).rejects.toThrow(
      'stop',
    );
  });
});
