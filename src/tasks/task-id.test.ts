import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newTaskId } from './task-id.js';

test('a task id is 22 base64url characters, never beginning with - or _ (a command line would take it for an option)', () => {
  const ids = new Set<string>();
  // 1 in 32 ids would begin so without the redraw: 4,000 make missing it all but impossible (about e^-125).
  for (let i = 0; i < 4000; i++) {
    const id = newTaskId();
    assert.match(id, /^[A-Za-z0-9][\w-]{21}$/);
    ids.add(id);
  }
  assert.equal(ids.size, 4000);
});
