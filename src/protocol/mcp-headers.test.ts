import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import type { HeaderAnnotation } from './header-annotations.js';
import {
  checkMethodHeader,
  checkMirroredHeaders,
  checkNameHeader,
  checkParamHeaders,
  checkVersionHeader,
  decodeHeaderValue,
  encodeHeaderValue,
  type HeaderLookup,
  mirroredHeaders,
  tooManyMcpHeaders,
} from './mcp-headers.js';

/** A lookup over headers named in any case, as an HTTP adapter gives them. */
function lookup(headers: Record<string, string>): HeaderLookup {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name);
}

const region: HeaderAnnotation = { header: 'Region', path: ['region'], type: 'string' };
const count: HeaderAnnotation = { header: 'Count', path: ['opts', 'count'], type: 'integer' };
const dry: HeaderAnnotation = { header: 'Dry', path: ['dry'], type: 'boolean' };

describe('encodeHeaderValue', () => {
  test('follows the spec table', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  test('integers in decimal, booleans in lower case; tabs, DEL and one-sided spaces get base64', () => {
    assert.equal(encodeHeaderValue(42), '42');
    assert.equal(encodeHeaderValue(-7), '-7');
    assert.equal(encodeHeaderValue(true), 'true');
    assert.equal(encodeHeaderValue(false), 'false');
    assert.equal(encodeHeaderValue(''), '');
    assert.equal(encodeHeaderValue('a b'), 'a b');
    for (const v of ['a\tb', 'a\x7fb', ' a', 'a ', '=?base64?='])
      assert.ok(encodeHeaderValue(v).startsWith('=?base64?'), v);
    assert.equal(encodeHeaderValue('=?base64?x'), '=?base64?x');
  });

  test('always yields a header-safe value that decodes back to the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.constant('=?base64?')), (s) => {
        const wire = encodeHeaderValue(s);
        for (let i = 0; i < wire.length; i++) {
          const c = wire.charCodeAt(i);
          assert.ok(c >= 0x20 && c <= 0x7e, `char ${c} in ${wire}`);
        }
        assert.ok(!wire.startsWith(' ') && !wire.endsWith(' '));
        assert.equal(decodeHeaderValue(wire), s);
      }),
    );
  });
});

describe('decodeHeaderValue', () => {
  test('decodes the sentinel, trims OWS, takes half-sentinels as literals', () => {
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8=?='), 'Hello');
    assert.equal(decodeHeaderValue(' \t=?base64?SGVsbG8=?=\t '), 'Hello');
    assert.equal(decodeHeaderValue('  echo  '), 'echo');
    assert.equal(decodeHeaderValue('SGVsbG8='), 'SGVsbG8=');
    assert.equal(decodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
    assert.equal(decodeHeaderValue('=?base64?='), '=?base64?=');
    assert.equal(decodeHeaderValue('=?base64??='), '');
    assert.equal(decodeHeaderValue('a\tb'), 'a\tb');
  });

  test('the sentinel is case-sensitive: =?BASE64?…?= is a literal', () => {
    assert.equal(decodeHeaderValue('=?BASE64?SGVsbG8=?='), '=?BASE64?SGVsbG8=?=');
  });

  test('refuses bad base64, bad UTF-8 and characters a field value may not hold', () => {
    for (const bad of [
      '=?base64?SGVsbG8?=', // missing padding
      '=?base64?SGVs!!!bG8=?=',
      '=?base64?SGVsbG9=?=', // non-canonical trailing bits
      '=?base64?SGVs bG8=?=',
      '=?base64?SGVsbG8-?=', // base64url alphabet
      '=?base64?/w==?=', // 0xFF is not UTF-8
      'caf\u00e9',
      'a\u0000b',
      'a\nb',
      '\u2028',
    ]) {
      assert.equal(decodeHeaderValue(bad), undefined, bad);
    }
  });

  test('never throws; a defined result ignores surrounding OWS', () => {
    const ows = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });
    const raw = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.base64String().map((b) => '=?base64?' + b + '?='),
    );
    fc.assert(
      fc.property(raw, ows, ows, (r, left, right) => {
        const decoded = decodeHeaderValue(r);
        assert.ok(decoded === undefined || typeof decoded === 'string');
        assert.equal(decodeHeaderValue(left + r + right), decoded);
      }),
    );
  });
});

describe('checkVersionHeader and checkMethodHeader', () => {
  test('equal after OWS trim passes; absent or different is a mismatch naming both', () => {
    assert.equal(
      checkVersionHeader('2026-07-28', lookup({ 'MCP-Protocol-Version': ' 2026-07-28' })),
      undefined,
    );
    const absent = checkVersionHeader('v999.0.0', lookup({}));
    assert.equal(absent?.header, 'MCP-Protocol-Version');
    assert.match(
      absent!.message,
      /protocolVersion"\]="v999\.0\.0" but the MCP-Protocol-Version header is absent$/,
    );
    const other = checkVersionHeader('v999.0.0', lookup({ 'mcp-protocol-version': '2026-07-28' }));
    assert.equal(other?.received, '2026-07-28');
  });

  test('Mcp-Method is case-sensitive, required on requests, optional on notifications', () => {
    assert.equal(checkMethodHeader('tools/list', lookup({ 'MCP-METHOD': 'tools/list' })), undefined);
    const upper = checkMethodHeader('tools/list', lookup({ 'Mcp-Method': 'TOOLS/LIST' }));
    assert.equal(
      upper?.message,
      'Bad Request: the request headers and body disagree: the body carries method="tools/list" but the Mcp-Method header is "TOOLS/LIST"',
    );
    assert.equal(checkMethodHeader('tools/list', lookup({}))?.header, 'Mcp-Method');
    assert.equal(checkMethodHeader('notifications/cancelled', lookup({}), false), undefined);
    assert.ok(checkMethodHeader('notifications/cancelled', lookup({ 'mcp-method': 'x' }), false));
  });
});

describe('checkNameHeader', () => {
  test('names the target of tools/call, prompts/get, resources/read and tasks/*', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['tools/call', { name: 'echo' }, 'echo'],
      ['prompts/get', { name: 'greet' }, 'greet'],
      ['resources/read', { uri: 'file:///a b/ü' }, encodeHeaderValue('file:///a b/ü')],
      ['tasks/get', { taskId: 't1' }, 't1'],
      ['tasks/update', { taskId: 't1' }, 't1'],
      ['tasks/cancel', { taskId: 't1' }, 't1'],
    ];
    for (const [method, params, header] of cases) {
      assert.equal(checkNameHeader(method, params, lookup({ 'Mcp-Name': header })), undefined, method);
      assert.equal(checkNameHeader(method, params, lookup({}))?.header, 'Mcp-Name', method);
    }
  });

  test('says what differs, decodes base64 first, and refuses a malformed value', () => {
    const params = { name: 'echo' };
    assert.equal(
      checkNameHeader('tools/call', params, lookup({ 'mcp-name': 'ech' }))?.message,
      'Bad Request: the request headers and body disagree: the body carries name="echo" but the Mcp-Name header is "ech"',
    );
    assert.equal(
      checkNameHeader('tools/call', params, lookup({}))?.message,
      'Bad Request: the request headers and body disagree: the body carries name="echo" but the Mcp-Name header is absent',
    );
    assert.equal(
      checkNameHeader('tools/call', params, lookup({ 'mcp-name': '=?base64?ZWNobw==?=' })),
      undefined,
    );
    assert.equal(checkNameHeader('tools/call', params, lookup({ 'mcp-name': '  echo ' })), undefined);
    const bad = checkNameHeader('tools/call', params, lookup({ 'mcp-name': '=?base64?ZWNobw?=' }));
    assert.match(
      bad!.message,
      /^Bad Request: the Mcp-Name header "=\?base64\?ZWNobw\?=" is not a valid value/,
    );
  });

  test('methods without a name ignore the header; a non-string name is left to params validation', () => {
    assert.equal(checkNameHeader('tools/list', {}, lookup({ 'mcp-name': 'x' })), undefined);
    assert.equal(checkNameHeader('tools/call', { name: 7 }, lookup({})), undefined);
    assert.equal(checkNameHeader('tools/call', undefined, lookup({})), undefined);
    assert.equal(checkNameHeader('constructor', {}, lookup({})), undefined);
  });
});

describe('checkParamHeaders', () => {
  const all = [region, count, dry];

  test('passes matching headers: base64, integers numerically, booleans', () => {
    const params = { name: 't', arguments: { region: 'Zürich ', opts: { count: 42 }, dry: false } };
    const headers = {
      'Mcp-Param-Region': '=?base64?WsO8cmljaCA=?=',
      'MCP-PARAM-COUNT': '42.0',
      'mcp-param-dry': 'false',
    };
    assert.equal(checkParamHeaders(params, lookup(headers), all), undefined);
    for (const n of ['42', '4.2e1', '42.000', ' 42 ']) {
      assert.equal(
        checkParamHeaders({ arguments: { opts: { count: 42 } } }, lookup({ 'mcp-param-count': n }), all),
        undefined,
        n,
      );
    }
  });

  test('an absent, different or malformed header is a mismatch naming the argument', () => {
    const params = { arguments: { region: 'us-west1' } };
    const absent = checkParamHeaders(params, lookup({}), all);
    assert.equal(
      absent?.message,
      'Bad Request: the request headers and body disagree: the body carries region="us-west1" but the Mcp-Param-Region header is absent',
    );
    assert.deepEqual(
      { header: absent?.header, body: absent?.body },
      { header: 'Mcp-Param-Region', body: 'us-west1' },
    );
    assert.equal(
      checkParamHeaders(params, lookup({ 'mcp-param-region': 'us-east1' }), all)?.received,
      'us-east1',
    );
    assert.ok(checkParamHeaders(params, lookup({ 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }), all));
    const nested = checkParamHeaders(
      { arguments: { opts: { count: 3 } } },
      lookup({ 'mcp-param-count': '0x3' }),
      all,
    );
    assert.match(nested!.message, /opts\.count=3 but the Mcp-Param-Count header is "0x3"$/);
    for (const h of ['True', '1', 'yes'])
      assert.ok(checkParamHeaders({ arguments: { dry: true } }, lookup({ 'mcp-param-dry': h }), all), h);
  });

  test('null and absent arguments need no header, but a header sent for one is a mismatch', () => {
    assert.equal(checkParamHeaders({ arguments: { region: null } }, lookup({}), all), undefined);
    assert.equal(checkParamHeaders({ arguments: {} }, lookup({}), all), undefined);
    assert.equal(checkParamHeaders({}, lookup({}), all), undefined);
    assert.match(
      checkParamHeaders({ arguments: {} }, lookup({ 'mcp-param-region': 'x' }), all)!.message,
      /the body carries no region but the Mcp-Param-Region header is "x"$/,
    );
    assert.ok(checkParamHeaders({ arguments: { region: null } }, lookup({ 'mcp-param-region': 'x' }), all));
    // Inherited members are not arguments.
    const inherited: HeaderAnnotation = { header: 'C', path: ['constructor'], type: 'string' };
    assert.equal(checkParamHeaders({ arguments: {} }, lookup({}), [inherited]), undefined);
  });

  test('headers of no annotation are ignored', () => {
    assert.equal(checkParamHeaders({ arguments: {} }, lookup({ 'mcp-param-other': 'x' }), all), undefined);
    assert.equal(
      checkParamHeaders({ arguments: {} }, lookup({ 'mcp-param-other': 'x' }), undefined),
      undefined,
    );
  });
});

describe('mirroredHeaders and checkMirroredHeaders', () => {
  test('checks method, then name, then params, and only tools/call has params', () => {
    const params = { name: 'echo', arguments: { region: 'r' } };
    assert.equal(checkMirroredHeaders('tools/call', params, lookup({}), [region])?.header, 'Mcp-Method');
    assert.equal(
      checkMirroredHeaders('tools/call', params, lookup({ 'mcp-method': 'tools/call' }), [region])?.header,
      'Mcp-Name',
    );
    const both = lookup({ 'mcp-method': 'tools/call', 'mcp-name': 'echo' });
    assert.equal(checkMirroredHeaders('tools/call', params, both, [region])?.header, 'Mcp-Param-Region');
    const prompt = lookup({ 'mcp-method': 'prompts/get', 'mcp-name': 'echo' });
    assert.equal(checkMirroredHeaders('prompts/get', params, prompt, [region]), undefined);
  });

  test('the spec example request', () => {
    const params = { name: 'execute_sql', arguments: { region: 'us-west1', query: 'SELECT 1' } };
    assert.deepEqual(mirroredHeaders('tools/call', params, [region]), {
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'execute_sql',
      'Mcp-Param-Region': 'us-west1',
    });
    assert.deepEqual(mirroredHeaders('tools/list', {}), { 'Mcp-Method': 'tools/list' });
  });

  test('what a client mirrors, the server accepts; any other value for one header it refuses', () => {
    const scalar = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean(), fc.constant(null));
    const args = fc.record(
      { region: scalar, opts: fc.record({ count: scalar }, { requiredKeys: [] }), dry: scalar },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), args, fc.string({ unit: 'binary' }), (name, a, other) => {
        const params = { name, arguments: a };
        const sent = mirroredHeaders('tools/call', params, [region, count, dry]);
        assert.equal(
          checkMirroredHeaders('tools/call', params, lookup(sent), [region, count, dry]),
          undefined,
        );
        if (typeof a.region === 'string' && a.region !== other) {
          const tampered = { ...sent, 'Mcp-Param-Region': encodeHeaderValue(other) };
          assert.equal(
            checkMirroredHeaders('tools/call', params, lookup(tampered), [region])?.header,
            'Mcp-Param-Region',
          );
        }
      }),
    );
  });

  test('never throws on hostile params and header values', () => {
    const hostile = fc.dictionary(fc.string(), fc.string({ unit: 'binary' }));
    fc.assert(
      fc.property(fc.string(), fc.anything(), hostile, (method, params, headers) => {
        const p = params as Record<string, unknown> | undefined;
        const result = checkMirroredHeaders(method, typeof p === 'object' ? p : undefined, lookup(headers), [
          region,
          count,
        ]);
        if (result !== undefined)
          assert.ok(result.message.length < 600 && result.message.startsWith('Bad Request: '));
      }),
    );
  });
});

describe('tooManyMcpHeaders', () => {
  test('counts only mcp-* headers, each value of a repeated one', () => {
    const headers: Record<string, string | string[]> = {
      host: 'x'.repeat(20000),
      'mcp-method': 'tools/list',
    };
    assert.equal(tooManyMcpHeaders(headers), undefined);
    for (let i = 0; i < 63; i++) headers['mcp-param-p' + i] = 'v';
    assert.equal(tooManyMcpHeaders(headers), undefined);
    headers['MCP-Param-Extra'] = ['a', 'b'];
    assert.equal(
      tooManyMcpHeaders(headers),
      'Request Header Fields Too Large: 66 Mcp-* headers, more than the limit of 64',
    );
    assert.equal(tooManyMcpHeaders(headers, { maxCount: 66 }), undefined);
  });

  test('bounds the total size of their names and values', () => {
    assert.equal(tooManyMcpHeaders({ 'mcp-name': 'x'.repeat(16 * 1024 - 8) }), undefined);
    assert.match(
      tooManyMcpHeaders({ 'mcp-name': 'x'.repeat(16 * 1024) })!,
      /16392 bytes of Mcp-\* headers, more than the limit of 16384$/,
    );
    assert.ok(tooManyMcpHeaders({ 'mcp-name': 'abcd' }, { maxBytes: 10 }));
  });
});
