import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import {
  discoverResult,
  error,
  openSse,
  result,
  type Script,
  scriptedServer,
  sendJson,
} from '../../test-support/scripted-http.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import { StreamableHTTPError } from '../http/http-client-errors.js';
import { connectUrl } from './connect-url.js';
import { probeHTTP } from './probe-http.js';

/*
 * The HTTP probe's classification (spec 2026-07-28 §negotiation): garbage means legacy with the answer
 * named; a modern error means a modern server, never the legacy HTTP+SSE fallback.
 */

const client = new Client(
  { name: 'probe-test', version: '1' },
  { requestTimeoutMs: 5000, probeTimeoutMs: 3000 },
);

async function probe(script: Script, timeout = 3000) {
  const server = await scriptedServer(script);
  try {
    const outcome = await within(
      probeHTTP(server.url, client, { fetch: (i, o) => fetch(i, o), timeout }),
      10_000,
      'probe',
    );
    return { outcome, server };
  } finally {
    await server.close();
  }
}

describe('probeHTTP: garbage is a legacy server, and the answer is named', () => {
  const cases: Array<[string, Script, RegExp]> = [
    ['an empty 200', (_h, res) => void res.writeHead(200).end(), /HTTP 200 with an empty body/],
    ['an empty 202', (_h, res) => void res.writeHead(202).end(), /HTTP 202 with an empty body/],
    [
      'HTML',
      (_h, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'),
      /no JSON-RPC answer \(text\/html\)/,
    ],
    [
      '-32700 with a null id',
      (_h, res) => sendJson(res, error(null, -32700, 'Parse error'), 400),
      /-32700 "Parse error" \(id null\)/,
    ],
    [
      'a 500 JSON-RPC error',
      (h, res) => sendJson(res, error(h.message.id, -32603, 'boom'), 500),
      /HTTP 500 with JSON-RPC error -32603/,
    ],
    [
      '-32601 with 200 (a legacy server before initialize)',
      (h, res) => sendJson(res, error(h.message.id, -32601, 'Method not found')),
      /HTTP 200 with JSON-RPC error -32601/,
    ],
    [
      'a result that is not a discover result',
      (h, res) => sendJson(res, result(h.message.id, { ok: true })),
      /not a discover result/,
    ],
    [
      'a discover result listing only versions we do not speak',
      (h, res) =>
        sendJson(res, result(h.message.id, { supportedVersions: ['2099-01-01'], capabilities: {} })),
      /none of which this client speaks/,
    ],
    [
      '-32022 listing only legacy versions',
      (h, res) =>
        sendJson(res, error(h.message.id, -32022, 'Unsupported', { supported: ['2025-11-25'] }), 400),
      /-32022/,
    ],
    [
      'an answer to another id',
      (_h, res) => sendJson(res, result(77, discoverResult())),
      /an answer to another request/,
    ],
  ];
  for (const [name, script, answer] of cases) {
    test(name, async () => {
      const { outcome } = await probe(script);
      assert.equal(outcome.era, 'legacy');
      assert.match((outcome as { answer: string }).answer, answer);
    });
  }

  test('no answer in time (the server holds the POST)', async () => {
    const { outcome } = await probe(() => {}, 200);
    assert.equal(outcome.era, 'legacy');
    assert.match((outcome as { answer: string }).answer, /no answer within 200 ms/);
  });
});

describe('probeHTTP: a modern answer', () => {
  test('a discover result in JSON or over SSE is modern, with the version chosen', async () => {
    for (const sse of [false, true]) {
      const { outcome, server } = await probe((h, res) => {
        const answer = result(h.message.id, discoverResult());
        if (sse) openSse(res, [answer]);
        if (sse) res.end();
        else sendJson(res, answer);
      });
      assert.equal(outcome.era, 'modern');
      assert.equal((outcome as { start: { protocolVersion: string } }).start.protocolVersion, '2026-07-28');
      const [hit] = server.hits;
      assert.equal(hit.headers['mcp-protocol-version'], '2026-07-28');
      assert.equal(hit.headers['mcp-method'], 'server/discover');
      assert.equal(hit.message._meta?.['io.modelcontextprotocol/protocolVersion'], undefined);
      assert.equal(hit.message.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    }
  });

  test('-32022 naming a version we speak is asked again once, then the discover result is modern', async () => {
    let n = 0;
    const { outcome, server } = await probe((h, res) => {
      if (n++ === 0)
        sendJson(
          res,
          error(h.message.id, -32022, 'Unsupported', { supported: ['2099-01-01', '2026-07-28'] }),
          400,
        );
      else sendJson(res, result(h.message.id, discoverResult()));
    });
    assert.equal(outcome.era, 'modern');
    assert.equal(server.posts('server/discover').length, 2);
  });

  test('-32022 again after the corrective retry is a modern refusal, after exactly two POSTs', async () => {
    const server = await scriptedServer((h, res) =>
      sendJson(res, error(h.message.id, -32022, 'Unsupported', { supported: ['2026-07-28'] }), 400),
    );
    try {
      await assert.rejects(
        probeHTTP(server.url, client, { fetch, timeout: 3000 }),
        (err: McpError) => err instanceof McpError && err.code === -32022,
      );
      assert.equal(server.hits.length, 2);
    } finally {
      await server.close();
    }
  });

  test('401 rejects with the status and what the server said, no classification', async () => {
    const server = await scriptedServer((_h, res) =>
      sendJson(res, error(null, -32000, 'Unauthorized: ask the operator for a token'), 401),
    );
    try {
      await assert.rejects(
        probeHTTP(server.url, client, { fetch, timeout: 3000 }),
        (err: StreamableHTTPError) =>
          err instanceof StreamableHTTPError &&
          err.status === 401 &&
          err.message.endsWith('(server/discover): Unauthorized: ask the operator for a token'),
      );
    } finally {
      await server.close();
    }
  });
});

describe('connectUrl: a modern error is never followed by initialize or the HTTP+SSE GET', () => {
  const refusals: Array<[string, number, number, unknown]> = [
    ['-32020', 400, -32020, { mismatch: { header: 'Mcp-Method' } }],
    ['-32021', 400, -32021, { requiredCapabilities: { elicitation: {} } }],
    ['-32022 listing only versions we do not speak', 400, -32022, { supported: ['2099-01-01'] }],
    ['-32601 with 404', 404, -32601, undefined],
  ];
  for (const [name, status, code, data] of refusals) {
    test(name, async () => {
      const server = await scriptedServer((h, res) =>
        sendJson(res, error(h.message?.id ?? null, code, 'refused', data), status),
      );
      try {
        await assert.rejects(within(connectUrl(client, server.url), 10_000, 'connect'), (err: McpError) => {
          assert.ok(err instanceof McpError, String(err));
          assert.equal(err.code, code);
          assert.match(err.message, /not falling back/);
          return true;
        });
        assert.deepEqual(server.gets(), [], 'no GET of the legacy transport');
        assert.deepEqual(
          server.hits.map((h) => h.message?.method),
          ['server/discover'],
          'no initialize either',
        );
      } finally {
        await server.close();
      }
    });
  }
});
