import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inputRequestsProblem, inputRequiredProblem } from './input-requests.js';
import { faultOf } from './param-checks.js';

const ELICIT = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};
const SAMPLE = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };

describe('inputRequestsProblem', () => {
  test('the three methods a server asks of a client, with the params they take, are input requests', () => {
    assert.equal(inputRequestsProblem({}), undefined);
    assert.equal(
      inputRequestsProblem({
        name: ELICIT,
        s: SAMPLE,
        r: { method: 'roots/list' },
        r2: { method: 'roots/list', params: {} },
      }),
      undefined,
    );
  });

  test('anything else says where it is wrong, as the peer says of a 2025 request', () => {
    const cases: [unknown, string][] = [
      [[ELICIT], ' must be an object of input requests by key'],
      ['x', ' must be an object of input requests by key'],
      [{ name: null }, '.name must be an object ({method, params})'],
      [{ name: [ELICIT] }, '.name must be an object ({method, params})'],
      [
        { name: { method: 'tools/call', params: {} } },
        '.name.method must be "elicitation/create", "sampling/createMessage" or "roots/list"',
      ],
      [
        { 'two words': { ...ELICIT, params: { requestedSchema: ELICIT.params.requestedSchema } } },
        '["two words"].params.message must be a string',
      ],
      [{ s: { ...SAMPLE, params: 'x' } }, '.s.params must be an object'],
      [{ s: { ...SAMPLE, params: { messages: [] } } }, '.s.params.maxTokens must be a number'],
    ];
    for (const [value, problem] of cases)
      assert.equal(inputRequestsProblem(value), problem, JSON.stringify(value));
  });
});

describe('inputRequiredProblem', () => {
  test('requests, state, or both', () => {
    assert.equal(inputRequiredProblem({ inputRequests: { name: ELICIT } }), undefined);
    assert.equal(inputRequiredProblem({ requestState: 's' }), undefined);
    assert.equal(inputRequiredProblem({ inputRequests: { name: ELICIT }, requestState: '' }), undefined);
  });

  test('neither, a state that is not a string, or requests that are not, are refused', () => {
    assert.equal(inputRequiredProblem({}), ' must carry inputRequests or requestState (or both)');
    assert.equal(inputRequiredProblem({ requestState: 7 }), '.requestState must be a string');
    assert.equal(
      inputRequiredProblem({ inputRequests: { a: { method: 'ping' } }, requestState: 's' }),
      '.inputRequests.a.method must be "elicitation/create", "sampling/createMessage" or "roots/list"',
    );
  });
});

test('faultOf reads a quoted key with a space as part of the path', () => {
  assert.deepEqual(faultOf('.inputRequests["a b"].method must be x'), {
    at: '.inputRequests["a b"].method',
    problem: 'must be x',
  });
  assert.deepEqual(faultOf('["say \\"hi there\\""] must be y'), {
    at: '["say \\"hi there\\""]',
    problem: 'must be y',
  });
  assert.deepEqual(faultOf(' must be an object'), { at: '', problem: 'must be an object' });
});
