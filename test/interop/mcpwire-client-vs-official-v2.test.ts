// mcpwire's Client against the official TypeScript SDK v2 server (src/test-support/official-v2-server.ts):
// a 2026-07-28 peer no one here wrote. Modern-only (`legacy: 'reject'`): every round trip through the
// ClientSession API, with what went on the wire recorded; dual (`legacy: 'stateless'`): auto goes modern
// and a legacy client still gets served; and a listen whose stream is cut re-opens and keeps delivering.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import type { Listen, ListenEvent } from '../../src/client/listen.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import type { CreateMessageRequestParams } from '../../src/protocol/types.js';
import { listenReader } from '../../src/test-support/listen-reader.js';
import {
  type OfficialV2Server,
  README_TEXT,
  README_URI,
  startOfficialV2Server,
} from '../../src/test-support/official-v2-server.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const ROOTS = [{ uri: 'file:///work/project', name: 'project' }];
const REPLY = { role: 'assistant' as const, content: { type: 'text' as const, text: 'sampled' }, model: 'm' };
const LIMIT = 10_000;
/** What every Client here reported through `onerror`; each test that checks it empties it first. */
const reported: Error[] = [];

/** A Client with every handler: each word it elicits is the field's name, upper-cased. */
function client(options: ClientOptions = {}): Client {
  return new Client(
    { name: 'mcpwire-vs-official-v2', version: '1.0.0' },
    {
      requestTimeoutMs: LIMIT,
      roots: ROOTS,
      sampling: (params: CreateMessageRequestParams) => {
        assert.deepEqual(params.messages[0].content, { type: 'text', text: 'hi' });
        return REPLY;
      },
      elicitation: {
        form: (params) => {
          const field = Object.keys(params.requestedSchema.properties)[0];
          return { action: 'accept', content: { [field]: field.toUpperCase() } };
        },
      },
      onerror: (err) => reported.push(err),
      ...options,
    },
  );
}

/** One HTTP request as the client sent it. */
interface Sent {
  method: string;
  headers: Headers;
  body: any;
}

/** A fetch that records every request; `cut` may replace a response (to break its stream). */
function recorder(cut?: (sent: Sent, res: Response) => Response) {
  const sent: Sent[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const entry: Sent = {
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    sent.push(entry);
    const res = await fetch(input, init);
    return cut === undefined ? res : cut(entry, res);
  };
  return { fetch: wrapped, sent };
}

const reader = (listen: Listen) => listenReader(listen, LIMIT);

const methodOf = (event: ListenEvent) =>
  event.type === 'notification' ? event.notification.method : event.type;

describe('mcpwire Client (auto) ↔ official v2 server, modern-only', { timeout: 60_000 }, () => {
  let server: OfficialV2Server;
  let session: ClientSession;
  const wire = recorder();

  before(async () => {
    server = await startOfficialV2Server({ legacy: 'reject' });
    session = await within(connectUrl(client(), server.url, { fetch: wire.fetch }), LIMIT, 'connect');
  });
  after(async () => {
    await session?.close();
    await server?.close();
  });

  test('auto finds the modern era with one server/discover', () => {
    assert.equal(session.era, 'modern');
    assert.equal(session.protocolVersion, '2026-07-28');
    assert.deepEqual(session.serverInfo, { name: 'official-v2-fixture', version: '2.4.0' });
    assert.equal(wire.sent[0].body.method, 'server/discover');
  });

  test('echo, and echo_region with plain and base64-sentinel values (the server checks the header)', async () => {
    await within(session.listTools(), LIMIT, 'tools/list'); // learns the x-mcp-header annotations
    assert.equal(toolText(await within(session.callTool('echo', { message: 'hi' }), LIMIT, 'echo')), 'hi');
    for (const [region, header] of [
      ['eu-west', 'eu-west'],
      ['Zürich', `=?base64?${Buffer.from('Zürich').toString('base64')}?=`],
      [' padded', `=?base64?${Buffer.from(' padded').toString('base64')}?=`],
    ]) {
      const result = await within(session.callTool('echo_region', { region }), LIMIT, region);
      assert.equal(toolText(result), region);
      assert.equal(wire.sent.at(-1)!.headers.get('mcp-param-region'), header);
    }
  });

  test("ask_name, sample and list_roots are answered by the Client's own handlers", async () => {
    assert.equal(toolText(await within(session.callTool('ask_name'), LIMIT, 'ask_name')), 'Hello NAME');
    const sampled = await within(session.callTool('sample', { prompt: 'hi' }), LIMIT, 'sample');
    assert.deepEqual(JSON.parse(toolText(sampled)), REPLY);
    const roots = await within(session.callTool('list_roots'), LIMIT, 'list_roots');
    assert.deepEqual(JSON.parse(toolText(roots)), { roots: ROOTS });
  });

  test('two_rounds: each retry echoes the requestState of the round before', async () => {
    const start = wire.sent.length;
    const result = await within(session.callTool('two_rounds'), LIMIT, 'two_rounds');
    assert.equal(toolText(result), 'FIRST then SECOND');
    const calls = wire.sent.slice(start).map((s) => s.body.params);
    assert.equal(calls.length, 3);
    assert.equal(calls[0].requestState, undefined);
    assert.deepEqual(Object.keys(calls[1].inputResponses), ['step1']);
    assert.deepEqual(Object.keys(calls[2].inputResponses), ['step2']);
    assert.match(calls[1].requestState, /^v1\./);
    assert.match(calls[2].requestState, /^v1\./);
    assert.notEqual(calls[1].requestState, calls[2].requestState);
  });

  test('the greet prompt and the demo://readme resource', async () => {
    const prompt = await within(session.getPrompt('greet', { name: 'Ada' }), LIMIT, 'greet');
    assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Hello, Ada!' });
    const read = await within(session.readResource(README_URI), LIMIT, 'read');
    assert.equal((read.contents[0] as { text: string }).text, README_TEXT);
  });

  test('a listen is acknowledged, then gets the tools and readme notifications', async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: [README_URI] };
    const listen = await within(session.listen(filter), LIMIT, 'the listen ack');
    try {
      assert.deepEqual(listen.honoured, filter);
      const next = reader(listen);
      server.notify.promptsChanged(); // not asked for: never delivered
      server.notify.toolsChanged();
      assert.equal(methodOf(await next('tools changed')), 'notifications/tools/list_changed');
      server.notify.resourceUpdated(README_URI);
      const updated = await next('readme updated');
      assert.equal(methodOf(updated), 'notifications/resources/updated');
      assert.equal(updated.type === 'notification' && updated.notification.params?.uri, README_URI);
    } finally {
      await within(listen.close(), LIMIT, 'listen close');
    }
    assert.deepEqual(await within(listen.ended, LIMIT, 'listen end'), { reason: 'closed' });
  });

  test('no request fell back: no initialize, no GET (SSE), every request in the 2026 envelope', () => {
    assert.deepEqual(reported, []);
    assert.ok(wire.sent.length > 10);
    for (const { method, headers, body } of wire.sent) {
      assert.equal(method, 'POST');
      assert.notEqual(body.method, 'initialize');
      assert.equal(body.params._meta[VERSION_KEY], '2026-07-28', `${body.method} lacks the envelope`);
      assert.equal(headers.get('mcp-protocol-version'), '2026-07-28');
      assert.equal(headers.get('mcp-session-id'), null);
    }
  });
});

describe('mcpwire Client ↔ official v2 server, dual (legacy: stateless)', { timeout: 60_000 }, () => {
  let server: OfficialV2Server;
  before(async () => {
    server = await startOfficialV2Server({ legacy: 'stateless' });
  });
  after(() => server?.close());

  test('auto goes modern', async () => {
    const session = await within(connectUrl(client(), server.url), LIMIT, 'connect');
    try {
      assert.equal(session.era, 'modern');
      assert.equal(
        toolText(await within(session.callTool('echo', { message: 'new' }), LIMIT, 'echo')),
        'new',
      );
    } finally {
      await session.close();
    }
  });

  test("era 'legacy' initializes a legacy session that calls echo", async () => {
    reported.length = 0;
    const wire = recorder();
    const legacy = client({ era: 'legacy' });
    const session = await within(connectUrl(legacy, server.url, { fetch: wire.fetch }), LIMIT, 'connect');
    try {
      assert.equal(session.era, 'legacy');
      assert.equal(session.protocolVersion, '2025-11-25');
      assert.equal(session.serverInfo.name, 'official-v2-fixture');
      assert.equal(
        toolText(await within(session.callTool('echo', { message: 'old' }), LIMIT, 'echo')),
        'old',
      );
      assert.equal(wire.sent[0].body.method, 'initialize');
      assert.ok(!wire.sent.some((s) => s.body?.method === 'server/discover'));
      assert.deepEqual(reported, [], 'the 405 to the standalone GET is not an error');
    } finally {
      await session.close();
    }
  });
});

test('a listen whose stream is cut re-opens: a resync, a new ack, and later notifications', {
  timeout: 60_000,
}, async () => {
  const server = await startOfficialV2Server({ legacy: 'reject' });
  let listens = 0;
  let cutNow: (() => void) | undefined;
  // The first listen's body is passed through until the test says cut, then errors as a dropped
  // connection does (and the upstream response is cancelled, so the server sees the client go).
  const wire = recorder((sent, res) => {
    if (sent.body?.method !== 'subscriptions/listen' || ++listens > 1 || res.body === null) return res;
    const upstream = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        cutNow = () => {
          controller.error(new TypeError('terminated: other side closed'));
          upstream.cancel().catch(() => {});
        };
      },
      async pull(controller) {
        const chunk = await upstream.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  });
  reported.length = 0;
  const retrying = client({ retry: { initialDelayMs: 10, maxDelayMs: 50 } });
  const session = await within(connectUrl(retrying, server.url, { fetch: wire.fetch }), LIMIT, 'connect');
  try {
    const listen = await within(session.listen({ toolsListChanged: true }), LIMIT, 'the first ack');
    const next = reader(listen);
    server.notify.toolsChanged();
    assert.equal(methodOf(await next('a change on the first stream')), 'notifications/tools/list_changed');

    cutNow!();
    const resync = await next('the resync');
    assert.equal(resync.type, 'resync');
    assert.equal(listens, 2, 'a second subscriptions/listen was POSTed');
    assert.deepEqual(listen.honoured, { toolsListChanged: true });

    server.notify.toolsChanged();
    assert.equal(methodOf(await next('a change on the new stream')), 'notifications/tools/list_changed');
    const posted = wire.sent.filter((s) => s.body?.method === 'subscriptions/listen').map((s) => s.body.id);
    assert.equal(posted.length, 2);
    assert.notEqual(posted[0], posted[1], 'the re-opened listen has a new id');
    await within(listen.close(), LIMIT, 'listen close');
    assert.deepEqual(reported, [], 'the drop is the resync, not an error');
  } finally {
    await session.close();
    await server.close();
  }
});
