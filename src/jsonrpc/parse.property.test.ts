// Fuzzing the one JSON-RPC parser and the params guards (issue 13): whatever text or value arrives, the
// parser answers a message that is exactly the input, or the precise error (-32700 / -32600) with the id
// when one can be read; the guards answer a problem string or undefined. Neither ever throws.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Method } from '../protocol/types.js';
import { assertValidParams, validateParams } from '../protocol/validate.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { ErrorCode, McpError } from './errors.js';
import { classify, type Parsed, parseMessage } from './parse.js';

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** Ids of every kind a peer may send, including the ones JSON-RPC or MCP forbid. */
const anyId = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.maxSafeInteger() },
  { weight: 4, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      1.5,
      -0.5,
      true,
      {},
      [],
      [1],
      2 ** 53,
      -(2 ** 53),
      1e21,
      '',
      '__proto__',
    ),
  },
  { weight: 1, arbitrary: fc.double() },
);

const errorField = fc.oneof(
  fc.record(
    {
      code: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 })),
      message: fc.oneof(fc.string({ maxLength: 12 }), fc.integer()),
      data: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 1 }),
);

const field = (name: string, value: fc.Arbitrary<unknown>) => value.map((v) => [name, v] as const);

/**
 * A JSON object shaped like a JSON-RPC message, as text: each usual field present or not and of any type,
 * hostile keys beside them, and duplicated keys (JSON.parse keeps the last, and so must the parser).
 */
const rpcShapedText = fc
  .tuple(
    fc.array(
      fc.oneof(
        field('jsonrpc', fc.constantFrom<unknown>('2.0', '2.0', '2.0', '1.0', 2, null, '2.0 ', '')),
        field('id', anyId),
        field('method', fc.oneof(fc.constantFrom<unknown>('ping', 'tools/call', '__proto__', '', 5, null))),
        field(
          'params',
          fc.oneof(
            fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
            fc.jsonValue({ maxDepth: 2 }),
          ),
        ),
        field('result', fc.oneof(fc.object({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }))),
        field('error', errorField),
        field('jsonrpc', fc.constant('2.0')),
        fc.tuple(fc.constantFrom(...HOSTILE_KEYS), fc.jsonValue({ maxDepth: 2 })),
      ),
      { maxLength: 7 },
    ),
  )
  .map(([entries]) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);

/** Values that break one rule each: wrong types, null, fractions, big integers, near-miss error objects. */
const HOSTILE_VALUES: unknown[] = [
  null,
  1.5,
  true,
  {},
  [],
  [{}],
  '',
  0,
  -1,
  2 ** 53,
  'x',
  '2.0',
  { code: 1 },
  { message: 'm' },
  { code: 1.5, message: 'm' },
  { code: 1, message: 2 },
  { code: '1', message: 'm' },
];

const BASES: Record<string, unknown>[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, result: {} },
  { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'm' } },
  { jsonrpc: '2.0', id: 3, error: { code: 1, message: 'm', data: [] } },
];

const EDITED_KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];

/** `base` with each edit applied: a key set to a value, or deleted (undefined), as JSON text. */
function edited(base: Record<string, unknown>, edits: [string, unknown][]): string {
  const entries = Object.entries(base);
  for (const [key, value] of edits) {
    const at = entries.findIndex(([k]) => k === key);
    if (value === undefined) {
      if (at !== -1) entries.splice(at, 1);
    } else if (at !== -1) entries[at] = [key, value];
    else entries.push([key, value]);
  }
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

/** A valid message with one to three fields set to a hostile value, deleted, or added where they do not belong. */
const nearValidText = fc
  .tuple(
    fc.constantFrom(...BASES),
    fc.array(
      fc.tuple(
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...EDITED_KEYS) },
          { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) },
        ),
        fc.constantFrom(...HOSTILE_VALUES, undefined),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([base, edits]) => edited(base, edits));

const rpcText = fc.oneof(
  { weight: 4, arbitrary: nearValidText },
  { weight: 6, arbitrary: rpcShapedText },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof(nearValidText, rpcShapedText), { maxLength: 4 })
      .map((items) => `[${items.join(',')}]`),
  },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
);

/** Near-valid text: a shaped message with one character inserted, deleted or replaced, or cut short. */
const mutatedText = fc
  .tuple(
    fc.oneof(rpcShapedText, nearValidText),
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace', 'cut'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  )
  .map(([text, at, how, c]) => {
    const i = at % (text.length + 1);
    if (how === 'insert') return text.slice(0, i) + c + text.slice(i);
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    if (how === 'replace') return text.slice(0, i) + c + text.slice(i + 1);
    return text.slice(0, i);
  });

/** Arbitrary bytes as an HTTP body becomes text: decoded as UTF-8 (invalid sequences replaced) or latin1. */
const bytesText = fc
  .tuple(fc.uint8Array({ maxLength: 64 }), fc.boolean())
  .map(([bytes, utf8]) => (utf8 ? new TextDecoder().decode(bytes) : Buffer.from(bytes).toString('latin1')));

const anyText = fc.oneof(rpcText, mutatedText, bytesText, fc.string({ unit: 'binary', maxLength: 40 }));

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
/** An integer JSON cannot carry exactly: how the parser treats it is another change's to decide. */
const isBigInt = (v: unknown) => isInt(v) && !Number.isSafeInteger(v);

type Verdict = 'valid' | 'invalid' | 'either';

/** The rules of JSON-RPC 2.0 as MCP narrows them, written apart from the parser so that they can judge it. */
function judge(v: unknown): Verdict {
  if (!isObject(v) || v.jsonrpc !== '2.0') return 'invalid';
  const id = v.id;
  const idOk = (nullable: boolean): Verdict =>
    typeof id === 'string' || Number.isSafeInteger(id) || (nullable && id === null)
      ? 'valid'
      : isBigInt(id)
        ? 'either'
        : 'invalid';
  if ('method' in v) {
    if (typeof v.method !== 'string' || 'result' in v || 'error' in v) return 'invalid';
    if ('params' in v && !isObject(v.params)) return 'invalid';
    return 'id' in v ? idOk(false) : 'valid';
  }
  if ('result' in v) return 'error' in v || !isObject(v.result) ? 'invalid' : idOk(false);
  if (!('error' in v) || !('id' in v)) return 'invalid';
  const e = v.error;
  return isObject(e) && isInt(e.code) && typeof e.message === 'string' ? idOk(true) : 'invalid';
}

/** The id an error answer must carry: the offending message's id when it is a string or an exact integer. */
function readableId(v: unknown): unknown {
  if (!isObject(v)) return null;
  return typeof v.id === 'string' || Number.isSafeInteger(v.id) ? v.id : isBigInt(v.id) ? undefined : null;
}

/** Checks the parser's answer for a value that JSON.parse read from the text. */
function checkClassified(value: unknown, parsed: Parsed): void {
  if (Array.isArray(value)) {
    const verdicts = value.map(judge);
    const firstBad = verdicts.indexOf('invalid');
    const certain = !verdicts.includes('either');
    if (value.length === 0 || (firstBad !== -1 && verdicts.slice(0, firstBad).every((v) => v === 'valid'))) {
      assert.equal(parsed.kind, 'invalid');
      if (parsed.kind === 'invalid' && value.length > 0) assertIdIs(parsed.id, readableId(value[firstBad]));
    } else if (certain && firstBad === -1) {
      assert.equal(parsed.kind, 'batch');
      if (parsed.kind === 'batch') assert.deepEqual(parsed.messages, value);
    }
    if (parsed.kind === 'invalid') assert.equal(parsed.error.code, ErrorCode.InvalidRequest);
    return;
  }
  const verdict = judge(value);
  if (verdict === 'either') return;
  if (verdict === 'valid') {
    assert.equal(parsed.kind, 'message', JSON.stringify(parsed));
    if (parsed.kind === 'message') assert.deepEqual(parsed.message, value);
    return;
  }
  assert.equal(parsed.kind, 'invalid', JSON.stringify(value));
  if (parsed.kind !== 'invalid') return;
  assert.equal(parsed.error.code, ErrorCode.InvalidRequest);
  assertIdIs(parsed.id, readableId(value));
}

/** `expected` undefined: the id is a big integer, which another change decides how to read. */
function assertIdIs(actual: unknown, expected: unknown): void {
  if (expected !== undefined) assert.equal(actual, expected);
}

describe('parseMessage, fuzzed', () => {
  test('any text: never throws; -32700 exactly when it is not JSON, else the classification of the JSON', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const parsed = parseMessage(text);
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          assert.equal(parsed.kind, 'invalid');
          if (parsed.kind !== 'invalid') return;
          assert.equal(parsed.error.code, ErrorCode.ParseError);
          assert.equal(parsed.id, null);
          assert.ok(parsed.error.message.startsWith('Parse error'), parsed.error.message);
          return;
        }
        checkClassified(value, parsed);
        if (parsed.kind === 'invalid') assert.ok(parsed.error.message.length > 0);
      }),
      fuzzRuns(2000),
    );
  });

  test('every single-field edit of a valid message (exhaustive): the classification the rules give', () => {
    for (const base of BASES) {
      for (const key of [...EDITED_KEYS, ...HOSTILE_KEYS]) {
        for (const value of [...HOSTILE_VALUES, undefined]) {
          const text = edited(base, [[key, value]]);
          checkClassified(JSON.parse(text), parseMessage(text));
        }
      }
    }
  });

  test('a valid message keeps its id exactly (string ids of any code point, safe integers)', () => {
    const id = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.maxSafeInteger(),
      fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
    );
    fc.assert(
      fc.property(id, fc.constantFrom('request', 'result', 'error'), (id, kind) => {
        const message =
          kind === 'request'
            ? { jsonrpc: '2.0', id, method: 'ping' }
            : kind === 'result'
              ? { jsonrpc: '2.0', id, result: {} }
              : { jsonrpc: '2.0', id, error: { code: -1, message: 'm' } };
        const parsed = parseMessage(JSON.stringify(message));
        assert.equal(parsed.kind, 'message');
        if (parsed.kind === 'message')
          assert.equal((parsed.message as { id: unknown }).id, JSON.parse(JSON.stringify(id)));
      }),
      fuzzRuns(500),
    );
  });

  test('classify, given any value a framing may hand it (not only JSON): never throws', () => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSparseArray: true }),
        (value) => {
          const parsed = classify(value);
          assert.ok(['message', 'batch', 'invalid'].includes(parsed.kind));
        },
      ),
      fuzzRuns(1000),
    );
  });

  test('deeply nested JSON is an answer, not a stack overflow', () => {
    const depth = 200_000;
    for (const text of [
      '['.repeat(depth) + ']'.repeat(depth),
      `{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
    ]) {
      const parsed = parseMessage(text);
      if (parsed.kind === 'invalid')
        assert.ok([ErrorCode.ParseError, ErrorCode.InvalidRequest].includes(parsed.error.code as -32700));
      else assert.equal(parsed.kind, 'message');
    }
  });
});

/** Every name a guard reads, so that generated params reach past the first field of each check. */
const FIELD_NAMES = [
  ...'name uri arguments _meta progressToken protocolVersion capabilities clientInfo version roots sampling'.split(
    ' ',
  ),
  ...'elicitation experimental cursor inputResponses requestState notifications toolsListChanged'.split(' '),
  ...'resourceSubscriptions taskIds ref type argument value context level messages role content maxTokens'.split(
    ' ',
  ),
  ...'text data mimeType resource blob input id toolUseId structuredContent isError includeContext'.split(
    ' ',
  ),
  ...'systemPrompt temperature stopSequences modelPreferences metadata tools inputSchema toolChoice mode'.split(
    ' ',
  ),
  ...'message elicitationId url requestedSchema properties required enum oneOf anyOf items const title'.split(
    ' ',
  ),
  ...'requestId reason progress total logger'.split(' '),
  ...HOSTILE_KEYS,
];

/** Strings a guard compares with: the enum values of MCP's params. */
const WORDS = [
  ...'text image audio resource_link resource tool_use tool_result user assistant object string number'.split(
    ' ',
  ),
  ...'integer boolean array ref/prompt ref/resource form url debug info error emergency none thisServer'.split(
    ' ',
  ),
  ...'allServers auto required https://example.com/ not-a-url'.split(' '),
];

const { params: shapedParams } = fc.letrec((tie) => ({
  params: fc.dictionary(fc.constantFrom(...FIELD_NAMES), tie('value'), { maxKeys: 6 }),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...WORDS),
    fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 6 })),
    tie('params'),
    fc.array(tie('value'), { maxLength: 3 }),
  ),
}));

const METHODS = [...Object.values(Method), 'unknown/method', 'constructor', '__proto__', 'hasOwnProperty'];

describe('validateParams, fuzzed', () => {
  test('any method, shaped or arbitrary params: a problem naming params, or undefined; never a throw or a change', () => {
    const anyParams = fc.oneof(
      { weight: 4, arbitrary: shapedParams },
      {
        weight: 1,
        arbitrary: fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true }),
      },
    );
    fc.assert(
      fc.property(fc.constantFrom(...METHODS), anyParams, (method, params) => {
        const before = safeJson(params);
        const problem = validateParams(method, params as Record<string, unknown>);
        assert.ok(
          problem === undefined || (typeof problem === 'string' && problem.startsWith('params')),
          String(problem),
        );
        assert.equal(safeJson(params), before, 'the guard must not change what it checks');
        try {
          assertValidParams(method, params as Record<string, unknown>);
          assert.equal(problem, undefined);
        } catch (err) {
          assert.ok(err instanceof McpError && err.code === ErrorCode.InvalidParams, String(err));
          assert.equal(err.message, `Invalid params: ${problem}`);
        }
      }),
      fuzzRuns(3000),
    );
  });
});

function safeJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}
