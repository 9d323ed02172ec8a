import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ResponseLostError } from '../../peer/errors.js';
import {
  modern,
  openSse,
  result,
  type Script,
  type ScriptedServer,
  scriptedServer,
  sendJson,
  writeEvent,
} from '../../test-support/scripted-http.js';
import { until, within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { connectUrl } from '../negotiation/connect-url.js';

/*
 * Both Streamable HTTP clients against a server whose answers are longer than the client reads (`maxEventChars`,
 * given to connectUrl): the request fails at once saying so, the rest is not read, and an SSE stream is not
 * resumed (the server would send the event again). Without the bound, the client would hold whatever it is sent.
 */

// An SSE event is bounded while it is unfinished: one much longer than any chunk a socket reads is never whole
// in one, so the bound is passed whatever the chunking.
const LIMIT = 16_384;
const LONG = { content: [{ type: 'text', text: 'x'.repeat(1_000_000) }] };
const TOO_LONG = /is longer than this client reads \(maxEventChars: 16384\)/;

/** Answers a tools/call by its `mode` argument: a long JSON body, a long SSE event, or a short answer. */
const answer: Script = (hit, res) => {
  const m = hit.message;
  if (m?.method === 'tools/list')
    return sendJson(res, result(m.id, { tools: [{ name: 't', inputSchema: { type: 'object' } }] }));
  const mode = m?.params?.arguments?.mode;
  if (mode === 'json') return sendJson(res, result(m.id, LONG));
  if (mode === 'sse') {
    // A priming event with an id first: the stream could be resumed from it, and must not be.
    openSse(res);
    res.write(`id: e-0\ndata: \n\nid: e-1\ndata: ${JSON.stringify(result(m.id, LONG))}\n\n`);
    return void res.end();
  }
  sendJson(res, result(m.id, { content: [{ type: 'text', text: 'short' }] }));
};

/** A 2025 server: initialize gives a session; its GET stream, when `stream` is set, sends one long event. */
const legacy =
  (stream: boolean): Script =>
  (hit, res) => {
    const m = hit.message;
    if (hit.httpMethod === 'GET') {
      if (!stream) return void res.writeHead(405).end();
      openSse(res);
      return writeEvent(res, {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'y'.repeat(1_000_000) },
      });
    }
    if (hit.httpMethod === 'DELETE') return void res.writeHead(200).end();
    if (m?.method === 'initialize') {
      res.setHeader('mcp-session-id', 'session-1');
      return sendJson(
        res,
        result(m.id, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: 'scripted', version: '1' },
        }),
      );
    }
    if (m !== undefined && !('id' in m)) return void res.writeHead(202).end();
    answer(hit, res);
  };

const resumptions = (server: ScriptedServer) =>
  server.hits.filter((hit) => hit.httpMethod === 'GET' && hit.headers['last-event-id'] !== undefined).length;

for (const era of ['modern', 'legacy'] as const) {
  describe(`${era} client: answers past maxEventChars`, () => {
    let server: ScriptedServer;
    let session: ClientSession;

    before(async () => {
      server = await scriptedServer(era === 'modern' ? modern(answer) : legacy(false));
      const client = new Client({ name: 'c', version: '1' }, { era, requestTimeoutMs: 60_000 });
      session = await within(
        connectUrl(client, server.url, { transport: 'http', maxEventChars: LIMIT }),
        10_000,
        'connect',
      );
    });

    after(async () => {
      await session.close();
      await server.close();
    });

    for (const mode of ['json', 'sse'] as const) {
      test(`a ${mode === 'json' ? 'JSON body' : 'SSE event'} past the bound fails the call at once; the next is answered`, async () => {
        // A minute of requestTimeoutMs is what waiting would end in: within() fails the test long before.
        await assert.rejects(within(session.callTool('t', { mode }), 20_000, 'fails'), (err: Error) => {
          assert.match(err.message, TOO_LONG);
          if (era === 'modern') assert.ok(err instanceof ResponseLostError, String(err));
          return true;
        });
        assert.equal(resumptions(server), 0, 'no GET resumes the stream');
        const short = await session.callTool('t', { mode: 'short' });
        assert.deepEqual(short.content, [{ type: 'text', text: 'short' }]);
      });
    }
  });
}

test("legacy client: a standalone GET stream's event past the bound gives the stream up, reported, not resumed", async () => {
  const server = await scriptedServer(legacy(true));
  const errors: Error[] = [];
  const client = new Client({ name: 'c', version: '1' }, { era: 'legacy', onerror: (e) => errors.push(e) });
  const session = await within(
    connectUrl(client, server.url, { transport: 'http', maxEventChars: LIMIT }),
    10_000,
    'connect',
  );
  try {
    await until(() => errors.some((e) => TOO_LONG.test(e.message)), 10_000, 'the stream given up');
    assert.match(
      errors.find((e) => TOO_LONG.test(e.message))!.message,
      /^The standalone GET stream is given up: /,
    );
    assert.equal(resumptions(server), 0);
  } finally {
    await session.close();
    await server.close();
  }
});
