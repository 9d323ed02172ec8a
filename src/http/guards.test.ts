import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkAccept,
  checkContentType,
  checkHostAndOrigin,
  defaultLoopbackPolicy,
  type HostOriginPolicy,
  isLoopbackAddress,
} from './guards.js';

function headers(values: Record<string, string>) {
  return { header: (name: string) => values[name] };
}

function statusOf(values: Record<string, string>, policy: HostOriginPolicy): number {
  return checkHostAndOrigin(headers(values), policy)?.status ?? 200;
}

describe('checkHostAndOrigin with the loopback policy', () => {
  const any = defaultLoopbackPolicy();
  const port3000 = defaultLoopbackPolicy(3000);

  const hosts: [string, number, number][] = [
    // Host, status with any port, status with port 3000
    ['localhost', 200, 421],
    ['localhost:3000', 200, 200],
    ['LOCALHOST:3000', 200, 200],
    ['localhost:8080', 200, 421],
    ['127.0.0.1:3000', 200, 200],
    ['127.0.0.1', 200, 421],
    ['[::1]:3000', 200, 200],
    ['[::1]', 200, 421],
    ['::1', 421, 421],
    ['evil.example', 421, 421],
    ['evil.example:3000', 421, 421],
    ['localhost.evil.example:3000', 421, 421],
    ['127.0.0.1.nip.io:3000', 421, 421],
    ['localhost:', 421, 421],
    ['localhost:30x0', 421, 421],
    ['', 400, 400],
  ];
  for (const [host, withAny, with3000] of hosts) {
    test(`Host ${JSON.stringify(host)} → ${withAny} (any port), ${with3000} (port 3000)`, () => {
      assert.equal(statusOf({ host }, any), withAny);
      assert.equal(statusOf({ host }, port3000), with3000);
    });
  }

  test('a request without a Host header is a 400', () => {
    assert.equal(statusOf({}, any), 400);
  });

  const origins: [string, number][] = [
    ['http://localhost:6274', 200],
    ['http://localhost', 200],
    ['https://localhost:8443', 200],
    ['http://127.0.0.1:5173', 200],
    ['http://[::1]:5173', 200],
    ['HTTP://LOCALHOST:6274', 200],
    ['http://evil.example', 403],
    ['http://localhost.evil.example', 403],
    ['http://localhost:6274.evil.example', 403],
    ['http://evil.example:3000', 403],
    ['ftp://localhost:21', 403],
    ['null', 403],
    ['', 403],
  ];
  for (const [origin, status] of origins) {
    test(`Origin ${JSON.stringify(origin)} → ${status}`, () => {
      assert.equal(statusOf({ host: 'localhost:3000', origin }, any), status);
    });
  }

  test('requests without an Origin (not from a browser) pass', () => {
    assert.equal(checkHostAndOrigin(headers({ host: 'localhost:3000' }), any), undefined);
  });

  test('the messages name the offending value and the option that would permit it', () => {
    assert.deepEqual(checkHostAndOrigin(headers({ host: 'localhost', origin: 'http://evil.example' }), any), {
      status: 403,
      message:
        'Forbidden: Origin "http://evil.example" is not allowed; configure allowedOrigins to permit it',
    });
    assert.deepEqual(checkHostAndOrigin(headers({ host: 'evil.example' }), any), {
      status: 421,
      message: 'Misdirected Request: Host "evil.example" is not allowed; configure allowedHosts to permit it',
    });
    const huge = checkHostAndOrigin(headers({ host: 'x'.repeat(10_000) }), any);
    assert.ok(huge!.message.length < 400, 'a huge header is cut short in the message');
  });

  test("an absolute-form target's authority is checked instead of Host (RFC 9112 §3.2.2)", () => {
    const target = (authority: string, host: string) => ({ ...headers({ host }), authority });
    assert.equal(checkHostAndOrigin(target('localhost:3000', 'evil.example'), any), undefined);
    assert.deepEqual(checkHostAndOrigin(target('evil.example', 'localhost:3000'), any), {
      status: 421,
      message:
        'Misdirected Request: the request target\'s authority "evil.example" is not allowed (it stands for Host); configure allowedHosts to permit it',
    });
    assert.equal(checkHostAndOrigin(target('', 'localhost'), any)?.status, 421);
  });
});

describe('checkHostAndOrigin with a configured policy', () => {
  const policy: HostOriginPolicy = {
    allowedHosts: ['mcp.example.com', 'Internal:8080'],
    allowedOrigins: ['https://app.example.com', 'null'],
  };
  const table: [Record<string, string>, number][] = [
    [{ host: 'mcp.example.com' }, 200],
    [{ host: 'mcp.example.com:443' }, 200],
    [{ host: 'internal:8080' }, 200],
    [{ host: 'internal:9090' }, 421],
    [{ host: 'internal' }, 421],
    [{ host: 'mcp.example.com', origin: 'https://app.example.com' }, 200],
    [{ host: 'mcp.example.com', origin: 'https://app.example.com:8443' }, 403],
    [{ host: 'mcp.example.com', origin: 'http://app.example.com' }, 403],
    [{ host: 'mcp.example.com', origin: 'null' }, 200],
  ];
  for (const [values, status] of table) {
    test(`${JSON.stringify(values)} → ${status}`, () => {
      assert.equal(statusOf(values, policy), status);
    });
  }

  test('an undefined list is not checked; an empty list of origins refuses every browser', () => {
    assert.equal(statusOf({ host: 'anything', origin: 'http://x' }, {}), 200);
    assert.equal(statusOf({ host: 'anything', origin: 'http://x' }, { allowedOrigins: [] }), 403);
    assert.equal(statusOf({ host: 'anything' }, { allowedOrigins: [] }), 200);
  });
});

describe('isLoopbackAddress', () => {
  const table: [string | undefined, boolean][] = [
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['', false],
    [undefined, false],
    ['192.168.1.10', false],
    ['127.0.0.1.nip.io', false],
  ];
  for (const [address, loopback] of table) {
    test(`${JSON.stringify(address)} → ${loopback}`, () =>
      assert.equal(isLoopbackAddress(address), loopback));
  }
});

describe('checkAccept', () => {
  const both = ['application/json', 'text/event-stream'] as const;
  const table: [string | undefined, readonly ('application/json' | 'text/event-stream')[], boolean][] = [
    ['application/json, text/event-stream', both, true],
    ['text/event-stream,application/json', both, true],
    ['  application/json ;q=0.9 ,  text/event-stream;q=0.5', both, true],
    ['Application/JSON, Text/Event-Stream', both, true],
    ['application/json; charset=utf-8, text/event-stream', both, true],
    ['application/json, text/event-stream; q=1.0', both, true],
    ['application/json, text/event-stream;q=0', both, false],
    ['application/json, text/event-stream; q = 0.000', both, false],
    ['application/json', both, false],
    ['text/event-stream', both, false],
    ['*/*', both, false],
    ['application/*, text/*', both, false],
    ['application/json, */*;q=0.8', both, false],
    ['application/json-patch+json, text/event-stream', both, false],
    ['application/json;x="a, text/event-stream"', both, false],
    ['', both, false],
    [undefined, both, false],
    ['text/event-stream', ['text/event-stream'], true],
    ['application/json, text/event-stream', ['text/event-stream'], true],
    ['text/html, application/xhtml+xml, */*;q=0.8', ['text/event-stream'], false],
  ];
  for (const [header, needs, ok] of table) {
    test(`${JSON.stringify(header)} needing ${needs.join(' and ')} → ${ok ? 'accepted' : '406'}`, () => {
      const result = checkAccept(header, needs);
      if (ok) assert.equal(result, undefined);
      else assert.equal(result?.status, 406);
    });
  }

  test('the message says what to send', () => {
    assert.deepEqual(checkAccept('*/*', both), {
      status: 406,
      message:
        'Not Acceptable: the Accept header must list application/json and text/event-stream, got "*/*"',
    });
  });
});

describe('checkContentType', () => {
  const table: [string | undefined, boolean][] = [
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;charset=UTF-8', true],
    [' application/json ', true],
    ['application/json ; charset=utf-8', true],
    ['application/jsonp', false],
    ['application/json-seq', false],
    ['text/plain', false],
    ['text/plain; x=application/json', false],
    ['', false],
    [undefined, false],
  ];
  for (const [header, ok] of table) {
    test(`${JSON.stringify(header)} → ${ok ? 'accepted' : '415'}`, () => {
      const result = checkContentType(header);
      if (ok) assert.equal(result, undefined);
      else assert.equal(result?.status, 415);
    });
  }

  test('the message names the expected and the received type', () => {
    assert.equal(
      checkContentType('text/plain')?.message,
      'Unsupported Media Type: Content-Type must be application/json, got "text/plain"',
    );
  });
});
