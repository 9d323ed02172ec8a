import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { decodeCursor, encodeCursor, pageOf } from './pagination.js';

const entries = [{ seq: 3 }, { seq: 5 }, { seq: 9 }, { seq: 12 }];
const items = ['a', 'b', 'c', 'd'];

test('a list that fits one page is returned whole, without a cursor', () => {
  const page = pageOf('tools', entries, items, undefined, 4);
  assert.equal(page.items, items);
  assert.equal(page.nextCursor, undefined);
});

test('pages follow each other to the end, and a cursor survives the removal of its item', () => {
  const first = pageOf('tools', entries, items, undefined, 2);
  assert.deepEqual(first.items, ['a', 'b']);
  const second = pageOf('tools', entries, items, first.nextCursor, 2);
  assert.deepEqual(second, { items: ['c', 'd'], nextCursor: undefined });
  // 'c' (seq 9) removed before the second page is asked for.
  const after = pageOf('tools', [entries[0], entries[1], entries[3]], ['a', 'b', 'd'], first.nextCursor, 2);
  assert.deepEqual(after.items, ['d']);
});

test('a cursor is bound to its list and must be one the server issued', () => {
  assert.deepEqual(decodeCursor('prompts', encodeCursor('prompts', 7, 2)), { seq: 7, offset: 2 });
  for (const bad of [encodeCursor('tools', 1), 'not a cursor', '']) {
    assert.throws(
      () => decodeCursor('prompts', bad),
      (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidParams,
    );
  }
});
