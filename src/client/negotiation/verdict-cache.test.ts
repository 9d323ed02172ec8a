import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VerdictCache } from './verdict-cache.js';

test('the verdict cache forgets the server remembered longest ago past 1000, and a set renews a server', () => {
  const cache = new VerdictCache();
  const legacy = { era: 'legacy', at: 0 } as const;
  for (let i = 0; i < 1000; i++) cache.set(`s${i}`, legacy);
  cache.set('s0', { era: 'modern', protocolVersion: '2026-07-28', at: 1 });
  cache.set('s1000', legacy);
  assert.equal(cache.get('s1'), undefined, 'the oldest not renewed went');
  assert.equal(cache.get('s0')?.era, 'modern');
  assert.equal(cache.get('s1000'), legacy);
  cache.delete('s0');
  assert.equal(cache.get('s0'), undefined);
});
