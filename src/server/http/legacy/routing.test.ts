import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  get,
  openSession,
  post,
  type Served,
  SSEReader,
  sseMessages,
  toolCall,
} from '../../../test-support/mcp-http.js';
import { type Gates, serveTestServer } from '../../../test-support/streamable-fixture.js';
import type { Server } from '../../server.js';

describe('StreamableHTTPHandler: routing', () => {
  let served: Served;
  let server: Server;
  let gates: Gates;

  before(async () => {
    ({ served, server, gates } = await serveTestServer());
  });
  after(() => served.close());

  test('concurrent POSTs on one session each get their own response', async () => {
    const sessionId = await openSession(served.url);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await post(served.url, toolCall(i, 'echo', { text: `t${i}` }), { sessionId });
        return sseMessages(res);
      }),
    );
    answers.forEach((messages, i) => {
      assert.equal(messages.length, 1);
      assert.equal(messages[0].id, i);
      assert.equal(messages[0].result.content[0].text, `t${i}`);
    });
  });

  test('messages sent while handling a request go on its stream; unrelated ones on the GET stream', async () => {
    const sessionId = await openSession(served.url);
    const getRes = await get(served.url, sessionId);
    assert.equal(getRes.status, 200);
    const standalone = new SSEReader(getRes);
    const prime = await standalone.next();
    assert.equal(prime?.data, '');

    const postRes = await post(served.url, toolCall(1, 'wait', { gate: 'route' }), { sessionId });
    const requestStream = new SSEReader(postRes);
    const log = await requestStream.nextMessage();
    assert.equal(log?.message.method, 'notifications/message');
    assert.equal(log?.message.params.data, 'waiting for route');

    // A change of the tool list concerns no request: it goes to the GET stream.
    const handle = server.tool({ name: 'extra' }, () => ({ content: [] }));
    const changed = await standalone.nextMessage();
    assert.equal(changed?.message.method, 'notifications/tools/list_changed');
    handle.remove();
    assert.equal((await standalone.nextMessage())?.message.method, 'notifications/tools/list_changed');

    gates.open('route');
    const result = await requestStream.nextMessage();
    assert.equal(result?.message.id, 1);
    assert.equal(result?.message.result.content[0].text, 'opened route');
    assert.equal(await requestStream.next(), undefined, 'the POST stream ends after its response');
    await standalone.cancel();
  });

  test('50 clients × 100 requests with colliding JSON-RPC ids: none misrouted', async () => {
    const clients = 50;
    const perClient = 100;
    const sessions = await Promise.all(Array.from({ length: clients }, () => openSession(served.url)));
    let misrouted = 0;
    await Promise.all(
      sessions.map(async (sessionId, c) => {
        // Four requests in flight per client: 200 at a time overall.
        for (let i = 1; i <= perClient; i += 4) {
          await Promise.all(
            [i, i + 1, i + 2, i + 3].map(async (id) => {
              const res = await post(served.url, toolCall(id, 'echo', { text: `${c}:${id}` }), { sessionId });
              const [answer] = await sseMessages(res);
              if (answer.id !== id || answer.result.content[0].text !== `${c}:${id}`) misrouted++;
            }),
          );
        }
      }),
    );
    assert.equal(misrouted, 0);
  });
});
