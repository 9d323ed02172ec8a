import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InputRequests } from '../protocol/modern-types.js';
import { InputRequired, inputRequired } from './input-required.js';

test('inputRequired takes requests a client can answer, state, or both', () => {
  const round = inputRequired({ inputRequests: { r: { method: 'roots/list' } }, state: { step: 1 } });
  assert.ok(round instanceof InputRequired);
  assert.deepEqual(round.inputRequests, { r: { method: 'roots/list' } });
  assert.deepEqual(inputRequired({ state: 0 }).state, 0);
});

test('inputRequired refuses, where its author reads why, what a client would refuse', () => {
  assert.throws(() => inputRequired({}), /needs inputRequests, state, or both/);
  const refused = (inputRequests: unknown, message: RegExp) =>
    assert.throws(() => inputRequired({ inputRequests: inputRequests as InputRequests }), message);
  refused({ t: { method: 'tools/call' } }, /inputRequests\.t\.method must be "elicitation\/create", /);
  refused(
    {
      'my name': {
        method: 'elicitation/create',
        params: { requestedSchema: { type: 'object', properties: {} } },
      },
    },
    /inputRequests\["my name"\]\.params\.message must be a string/,
  );
  refused({ s: { method: 'sampling/createMessage', params: { messages: [] } } }, /\.s\.params\.maxTokens/);
});
