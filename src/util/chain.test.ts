import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { Chain, type Linked } from './chain.js';

class Item implements Linked<Item> {
  chainPrevious: Item | undefined = undefined;
  chainNext: Item | undefined = undefined;
  constructor(readonly n: number) {}
}

test('Chain: any sequence of adds and removes holds what a Set would, in the order added, and counts it', () => {
  const step = fc.record({ add: fc.boolean(), item: fc.integer({ min: 0, max: 5 }) });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const items = Array.from({ length: 6 }, (_, n) => new Item(n));
      const chain = new Chain<Item>();
      const set = new Set<Item>();
      for (const { add, item } of steps) {
        const it = items[item];
        if (add && !set.has(it)) {
          chain.add(it);
          set.add(it);
        } else if (!add) {
          chain.delete(it);
          set.delete(it);
        }
        assert.deepEqual(chain.values(), [...set]);
        assert.deepEqual([...chain], [...set]);
        assert.equal(chain.size, set.size);
      }
    }),
  );
});

test('Chain: removing an item in no chain, or removing one twice, changes nothing', () => {
  const [a, b] = [new Item(1), new Item(2)];
  const chain = new Chain<Item>();
  chain.add(a);
  chain.add(b);
  chain.delete(new Item(3));
  chain.delete(b);
  chain.delete(b);
  assert.deepEqual(chain.values(), [a]);
  assert.equal(chain.size, 1);
});

test('Chain: going through it goes through a copy, so items can be removed and added meanwhile', () => {
  const items = [new Item(1), new Item(2), new Item(3)];
  const chain = new Chain<Item>();
  for (const item of items) chain.add(item);
  const seen: Item[] = [];
  for (const item of chain) {
    seen.push(item);
    chain.delete(item);
    chain.add(new Item(item.n + 10));
  }
  assert.deepEqual(seen, items);
  assert.deepEqual(
    chain.values().map((item) => item.n),
    [11, 12, 13],
  );
});
