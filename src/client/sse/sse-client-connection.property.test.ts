// The legacy HTTP+SSE client (2024-11-05) against a server whose answer to a call is hostile. The POST gets any
// status (mostly 202). After a 2xx, the session's stream carries events around the answer, built as the HTTP
// clients' property tests build them (test-support/hostile-answers.ts): notifications with any params, requests of
// the server's own, answers to other ids, data that is not JSON, events of another type, data split over two lines,
// invalid answers. Then the stream stays open, is cut (the client reconnects to a new server session), or sends a
// second endpoint event (ignored). The call settles within its bounds: with the first answer the stream carried,
// else with an error; and the session serves the next call, on a new server session when the old one was lost.
// Runs and seed: test-support/fuzz.ts.
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { fc } from '../../test-support/fuzz.js';
import {
  type Answer,
  cut,
  eachCallSettles,
  events,
  eventsAnswer,
  type Framing,
  framing,
  NONE,
  type Piece,
  sseEvents,
} from '../../test-support/hostile-answers.js';
import { type LoopbackServer, listenLoopback, readBody } from '../../test-support/http-loopback.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { SSEClientConnection } from './sse-client-connection.js';

const BOUND_MS = 20_000;

/** How the server answers the call: the POST's status, then (after a 2xx) events on the session's stream. */
interface StreamReply extends Framing {
  status: number;
  pieces: Piece[];
  /** After the events: the stream stays open, is cut, or sends a second endpoint event. */
  afterwards: 'open' | 'cut' | 'endpoint';
}

const streamReply: fc.Arbitrary<StreamReply> = fc
  .record({
    status: fc.oneof(
      { weight: 6, arbitrary: fc.constant(202) },
      fc.constantFrom(200, 204, 400, 404, 500, 503),
    ),
    pieces: events,
    framing,
    afterwards: fc.oneof(
      { weight: 4, arbitrary: fc.constant('open' as const) },
      fc.constantFrom('cut' as const, 'endpoint' as const),
    ),
  })
  .map(({ framing, ...rest }) => ({ ...rest, ...framing }));

/**
 * Another status fails the POST, and the call with it: 404 says the session is gone (the client reconnects), any
 * other rejects the message. A stream cut before an answer ends the session and the call with it.
 */
function expected(r: StreamReply): Answer {
  if (r.status < 200 || r.status > 299) return NONE;
  return eventsAnswer(r.pieces, r);
}

let server: LoopbackServer;
let session: ClientSession;
let current: StreamReply | undefined;
/** The open stream of each server session, by its number. */
const streams = new Map<string, ServerResponse>();

function event(stream: ServerResponse, id: unknown, result: unknown): void {
  stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
}

function answerCall(stream: ServerResponse, res: ServerResponse, r: StreamReply, id: unknown): void {
  res.writeHead(r.status).end();
  if (r.status < 200 || r.status > 299) return;
  const text = sseEvents(r.pieces, r, id);
  if (r.afterwards === 'cut') cut(stream, text);
  else
    stream.write(
      r.afterwards === 'endpoint' ? `${text}event: endpoint\ndata: /messages?session=elsewhere\n\n` : text,
    );
}

before(async () => {
  let opened = 0;
  server = await listenLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const name = String(++opened);
      streams.set(name, res);
      res.on('close', () => streams.delete(name));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.write(`event: endpoint\ndata: /messages?session=${name}\n\n`);
    }
    const stream = streams.get(url.searchParams.get('session') ?? '');
    if (req.method !== 'POST' || stream === undefined) return void res.writeHead(404).end();
    const msg = JSON.parse(await readBody(req));
    if (!('method' in msg) || !('id' in msg)) return void res.writeHead(202).end();
    if (msg.method === 'tools/call' && current !== undefined) return answerCall(stream, res, current, msg.id);
    res.writeHead(202).end();
    const initialized = {
      protocolVersion: '2024-11-05',
      capabilities: { tools: {} },
      serverInfo: { name: 'f', version: '1' },
    };
    event(stream, msg.id, msg.method === 'initialize' ? initialized : {});
  });
  const connection = new SSEClientConnection(`http://127.0.0.1:${server.port}/sse`, {
    retry: { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  });
  const client = new Client({ name: 'fuzz', version: '1' }, { requestTimeoutMs: 1_000, onerror: () => {} });
  session = await within(client.connect(connection), BOUND_MS, 'connect');
});

after(async () => {
  await session?.close();
  for (const stream of streams.values()) stream.destroy();
  await server?.close();
});

test('a call settles with the first answer its stream carried, or an error; the session serves the next', () =>
  eachCallSettles(
    session,
    streamReply,
    expected,
    (reply) => {
      current = reply;
    },
    80,
  ));
