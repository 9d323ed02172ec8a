import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { ErrorCode, McpError, toErrorObject } from './errors.js';
import { parseMessage } from './parse.js';

const invalid: Array<[string, string, number, string | number | null, string]> = [
  ['not JSON', '{"jsonrpc":', ErrorCode.ParseError, null, 'Parse error'],
  ['empty text', '', ErrorCode.ParseError, null, 'Parse error'],
  ['a string', '"hello"', ErrorCode.InvalidRequest, null, 'must be an object'],
  ['null', 'null', ErrorCode.InvalidRequest, null, 'must be an object'],
  ['a number', '42', ErrorCode.InvalidRequest, null, 'must be an object'],
  ['no jsonrpc', '{"id":1,"method":"ping"}', ErrorCode.InvalidRequest, 1, '"jsonrpc" must be "2.0"'],
  [
    'jsonrpc 1.0',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    ErrorCode.InvalidRequest,
    1,
    '"jsonrpc" must be "2.0"',
  ],
  [
    'method not a string',
    '{"jsonrpc":"2.0","id":1,"method":5}',
    ErrorCode.InvalidRequest,
    1,
    '"method" must be a string',
  ],
  [
    'null id on a request',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    'must not be null',
  ],
  [
    'fractional id',
    '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    'string or an integer',
  ],
  [
    'object id',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    'string or an integer',
  ],
  [
    'boolean id',
    '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    'string or an integer',
  ],
  [
    'array params',
    '{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}',
    ErrorCode.InvalidRequest,
    2,
    '"params" must be an object',
  ],
  [
    'string params',
    '{"jsonrpc":"2.0","method":"x","params":"a"}',
    ErrorCode.InvalidRequest,
    null,
    '"params" must be an object',
  ],
  [
    'method with result',
    '{"jsonrpc":"2.0","id":3,"method":"x","result":{}}',
    ErrorCode.InvalidRequest,
    3,
    'must not carry',
  ],
  [
    'result and error',
    '{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"m"}}',
    ErrorCode.InvalidRequest,
    4,
    'both "result" and "error"',
  ],
  [
    'result without id',
    '{"jsonrpc":"2.0","result":{}}',
    ErrorCode.InvalidRequest,
    null,
    'needs a string or integer "id"',
  ],
  [
    'result not an object',
    '{"jsonrpc":"2.0","id":5,"result":3}',
    ErrorCode.InvalidRequest,
    5,
    '"result" must be an object',
  ],
  [
    'error without code',
    '{"jsonrpc":"2.0","id":6,"error":{"message":"m"}}',
    ErrorCode.InvalidRequest,
    6,
    'integer "code"',
  ],
  [
    'error without id',
    '{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}',
    ErrorCode.InvalidRequest,
    null,
    'needs an "id"',
  ],
  [
    'nothing to do',
    '{"jsonrpc":"2.0","id":7}',
    ErrorCode.InvalidRequest,
    7,
    'needs "method", "result" or "error"',
  ],
  // JSON.parse rounds these (2^64 becomes 18446744073709552000; 2^53 and 2^53+1 become one number): the
  // response could not carry the same id, so the id is unreadable and the answer carries null.
  [
    'a request id of 2^64',
    '{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    '"id" must be a safe integer',
  ],
  [
    'a request id of 2^53',
    '{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    '"id" must be a safe integer',
  ],
  [
    'a request id of -(2^53+1)',
    '{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    '"id" must be a safe integer',
  ],
  [
    'a request id of 1e400',
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    ErrorCode.InvalidRequest,
    null,
    'string or an integer',
  ],
  [
    'a result whose id is 2^64',
    '{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}',
    ErrorCode.InvalidRequest,
    null,
    '"id" must be a safe integer',
  ],
  [
    'an error whose id is 2^53+1',
    '{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":1,"message":"m"}}',
    ErrorCode.InvalidRequest,
    null,
    '"id" must be a safe integer',
  ],
  ['empty batch', '[]', ErrorCode.InvalidRequest, null, 'empty batch'],
  [
    'bad batch item',
    '[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":9,"method":7}]',
    ErrorCode.InvalidRequest,
    9,
    '"method" must be a string',
  ],
];

describe('parseMessage', () => {
  for (const [name, text, code, id, message] of invalid) {
    test(`refuses ${name} with ${code}`, () => {
      const parsed = parseMessage(text);
      assert.equal(parsed.kind, 'invalid');
      if (parsed.kind !== 'invalid') return;
      assert.equal(parsed.error.code, code);
      assert.equal(parsed.id, id);
      assert.ok(parsed.error.message.includes(message), parsed.error.message);
    });
  }

  test('classifies requests, notifications, results and errors', () => {
    const cases: Array<[string, string]> = [
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'request'],
      ['{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}', 'request'],
      ['{"jsonrpc":"2.0","method":"notifications/initialized"}', 'notification'],
      ['{"jsonrpc":"2.0","id":1,"result":{}}', 'response'],
      ['{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}', 'response'],
    ];
    for (const [text, kind] of cases) {
      const parsed = parseMessage(text);
      assert.equal(parsed.kind, 'message', text);
      if (parsed.kind !== 'message') continue;
      const m = parsed.message;
      const actual = 'method' in m ? ('id' in m ? 'request' : 'notification') : 'response';
      assert.equal(actual, kind, text);
    }
  });

  test('keeps every id in the safe integer range as it is', () => {
    for (const id of [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0]) {
      for (const text of [
        `{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
        `{"jsonrpc":"2.0","id":${id},"result":{}}`,
      ]) {
        const parsed = parseMessage(text);
        assert.equal(parsed.kind, 'message', text);
        if (parsed.kind === 'message') assert.equal((parsed.message as { id: number }).id, id);
      }
    }
  });

  test('property: an integer id is either read exactly or refused with an id of null', () => {
    const integerText = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '-9007199254740993'),
    );
    fc.assert(
      fc.property(integerText, fc.constantFrom('"method":"ping"', '"result":{}'), (id, rest) => {
        const parsed = parseMessage(`{"jsonrpc":"2.0","id":${id},${rest}}`);
        if (parsed.kind === 'invalid') {
          assert.equal(parsed.id, null);
          assert.ok(
            BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER) || BigInt(id) < -BigInt(Number.MAX_SAFE_INTEGER),
          );
          return;
        }
        assert.equal(parsed.kind, 'message');
        if (parsed.kind === 'message')
          assert.equal(JSON.stringify((parsed.message as { id: number }).id), id);
      }),
    );
  });

  test('an invalid message with no "method" and a readable id is an invalid answer to that request, saying why', () => {
    const cases: Array<[string, string | undefined]> = [
      ['{"jsonrpc":"2.0","id":5,"result":3}', '"result" must be an object'],
      [
        '{"jsonrpc":"2.0","id":"a","error":{"message":"m"}}',
        '"error" must be an object with an integer "code" and a string "message"',
      ],
      ['{"jsonrpc":"2.0","id":7}', 'a message needs "method", "result" or "error"'],
      ['{"jsonrpc":"1.0","id":8,"result":{}}', '"jsonrpc" must be "2.0"'],
      ['[{"jsonrpc":"2.0","id":9,"result":[]}]', '"result" must be an object'],
      // A request or notification answers nothing; nor does a message whose id cannot be read.
      ['{"jsonrpc":"1.0","id":1,"method":"ping"}', undefined],
      ['{"jsonrpc":"2.0","result":{}}', undefined],
      ['{"jsonrpc":"2.0","id":{"x":1},"result":{}}', undefined],
      ['{"jsonrpc":"2.0","id":18446744073709551616,"result":3}', undefined],
      ['"text"', undefined],
    ];
    for (const [text, why] of cases) {
      const parsed = parseMessage(text);
      assert.equal(parsed.kind, 'invalid', text);
      if (parsed.kind === 'invalid') assert.equal(parsed.invalidAnswer, why, text);
    }
  });

  test('returns a batch whole', () => {
    const parsed = parseMessage('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]');
    assert.equal(parsed.kind, 'batch');
    if (parsed.kind === 'batch') assert.equal(parsed.messages.length, 2);
  });
});

describe('toErrorObject', () => {
  test('keeps an McpError code and data', () => {
    assert.deepEqual(toErrorObject(new McpError(-32002, 'Resource not found', { uri: 'x' })), {
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'x' },
    });
  });
  test('turns other failures into -32603 with the message and no stack', () => {
    const obj = toErrorObject(new TypeError('boom'));
    assert.deepEqual(obj, { code: -32603, message: 'boom' });
  });
});
