import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatRetry, formatSseEvent } from './sse-event.js';

describe('formatSseEvent', () => {
  test('fields in order, one blank line at the end', () => {
    assert.equal(
      formatSseEvent({ id: 's1_4', event: 'message', retry: 1000, data: '{"jsonrpc":"2.0"}' }),
      'id: s1_4\nevent: message\nretry: 1000\ndata: {"jsonrpc":"2.0"}\n\n',
    );
    assert.equal(formatSseEvent({ data: 'x' }), 'data: x\n\n');
  });

  test('empty data is an empty data field, so an id-only event still dispatches (priming)', () => {
    assert.equal(formatSseEvent({ id: 's1_0', data: '' }), 'id: s1_0\ndata: \n\n');
  });

  test('every kind of line break in data becomes its own data line: no field can be injected', () => {
    assert.equal(
      formatSseEvent({ data: 'a\r\nid: forged\rb\nevent: x\n' }),
      'data: a\ndata: id: forged\ndata: b\ndata: event: x\ndata: \n\n',
    );
  });

  test('a leading space in data survives (one space after the colon is always written)', () => {
    assert.equal(formatSseEvent({ data: ' x' }), 'data:  x\n\n');
  });

  const unsafe: [string, Parameters<typeof formatSseEvent>[0]][] = [
    ['id with LF', { id: '1\ndata: forged', data: 'x' }],
    ['id with CR', { id: '1\r', data: 'x' }],
    ['id with NUL', { id: '1\0', data: 'x' }],
    ['event with CR', { event: 'message\revent: forged', data: 'x' }],
    ['event with LF', { event: 'a\n', data: 'x' }],
  ];
  for (const [name, e] of unsafe) {
    test(`refuses an ${name}`, () => assert.throws(() => formatSseEvent(e), TypeError));
  }

  test('retry must be a non-negative integer', () => {
    assert.equal(formatRetry(0), 'retry: 0\n');
    assert.throws(() => formatRetry(-1), TypeError);
    assert.throws(() => formatRetry(1.5), TypeError);
    assert.throws(() => formatRetry(Number.NaN), TypeError);
  });
});
