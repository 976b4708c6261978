import { markAppendOnly } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { FragmentCache } from './fragment-cache.js';
import { extendedPrefix, seeList } from './joined-bytes.js';

interface Item {
  text: string;
}

const cacheOf = () => new FragmentCache<Item>((item) => JSON.stringify(item.text));

describe('extendedPrefix', () => {
  it('trusts an append-only array grown in place without comparing its items', () => {
    const items = markAppendOnly<Item>([{ text: 'a' }, { text: 'b' }]);
    const seen = seeList(items);
    expect(seen.items).toBe(items);
    items.push({ text: 'c' });
    expect(extendedPrefix(seen, items)).toBe(2);
  });

  it('compares every item of an unmarked array, so a change in place is seen', () => {
    const items: Item[] = [{ text: 'a' }, { text: 'b' }];
    const seen = seeList(items);
    expect(seen.items).not.toBe(items);
    items[0] = { text: 'x' };
    items.push({ text: 'c' });
    expect(extendedPrefix(seen, items)).toBe(0);
  });

  it('finds no shared prefix when the list shrank', () => {
    const items = markAppendOnly<Item>([{ text: 'a' }, { text: 'b' }]);
    expect(extendedPrefix(seeList(items), items.slice(0, 1))).toBe(0);
  });
});

describe('FragmentCache bytes over a growing history', () => {
  it('encodes an append-only history grown in place exactly like a fresh list', () => {
    const cache = cacheOf();
    const history = markAppendOnly<Item>([]);
    for (let step = 0; step < 5; step++) {
      history.push({ text: `user ${step}` }, { text: `reply ${step} é` });
      const lease = cache.frameBytes(history, Buffer.from('['), Buffer.from(']'));
      const expected = `[${history.map((item) => JSON.stringify(item.text)).join(',')}]`;
      expect(lease.bytes.toString('utf8')).toBe(expected);
      expect(cache.join(history)).toBe(expected.slice(1, -1));
      lease.release();
    }
  });

  it('re-encodes an unmarked list whose earlier item was replaced in place', () => {
    const cache = cacheOf();
    const history: Item[] = [{ text: 'a' }, { text: 'b' }];
    expect(cache.joinBytes(history).toString('utf8')).toBe('"a","b"');
    history[0] = { text: 'z' };
    history.push({ text: 'c' });
    expect(cache.joinBytes(history).toString('utf8')).toBe('"z","b","c"');
    expect(cache.join(history)).toBe('"z","b","c"');
  });
});
