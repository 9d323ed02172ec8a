import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { JsonRpcMessage, Params, RequestId } from '../../jsonrpc/types.js';
import { MetaKey } from '../../protocol/envelope.js';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { until } from '../../test-support/time-limit.js';
import { Server } from '../server.js';
import { type StdioServeOptions, serveStdio } from './serve-stdio.js';

type Line = JsonRpcMessage & {
  id?: RequestId;
  method?: string;
  params?: Params;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/** A bound on each wait: generous, as it costs time only when a test fails, and a busy machine can stall for seconds. */
const WAIT_MS = 20_000;

const ENVELOPE = {
  [MetaKey.ProtocolVersion]: '2026-07-28',
  [MetaKey.ClientCapabilities]: { elicitation: {} },
};

const modern = (id: RequestId, method: string, params: Params = {}): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object | undefined) } },
});

const initialize: JsonRpcMessage = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

const cancel = (requestId: RequestId): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});

/** A slow tool that tells when its signal aborts, a tool that reports progress, one that elicits. */
function testServer() {
  const server = new Server({ name: 'stdio-test', version: '1' });
  const aborted: string[] = [];
  server.tool({ name: 'slow' }, (_args, ctx) => {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted.push(String(ctx.requestId));
        reject(ctx.signal.reason);
      });
    });
  });
  server.tool({ name: 'steps' }, async (_args, ctx) => {
    await ctx.sendProgress(1, 2);
    await ctx.sendProgress(2, 2);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool({ name: 'ask_name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return { content: [{ type: 'text', text: `Hello ${(answer.content as { name: string }).name}` }] };
  });
  return { server, aborted };
}

function connect(server: Server, options: Omit<StdioServeOptions, 'stdin' | 'stdout' | 'onerror'> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Line[] = [];
  let partial = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const part of parts) lines.push(JSON.parse(part) as Line);
  });
  const errors: Error[] = [];
  const service = serveStdio(server, { ...options, stdin, stdout, onerror: (err) => errors.push(err) });
  const send = (...messages: (JsonRpcMessage | string)[]): void => {
    for (const m of messages) stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  };
  const answer = async (id: RequestId): Promise<Line> => {
    const find = () => lines.find((l) => l.id === id && (l.result !== undefined || l.error !== undefined));
    await until(() => find() !== undefined, WAIT_MS, `the answer to ${JSON.stringify(id)}`);
    return find()!;
  };
  const tagged = (id: RequestId) =>
    lines.filter(
      (l) =>
        l.method !== undefined &&
        (l.params?._meta as Record<string, unknown>)?.[MetaKey.SubscriptionId] === id,
    );
  return { stdin, stdout, lines, errors, service, send, answer, tagged };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('serveStdio: the legacy era', () => {
  test('a connection that opens with initialize is a 2025 session, first message included', async () => {
    const { server } = testServer();
    const c = connect(server);
    c.send(initialize, { jsonrpc: '2.0', method: 'notifications/initialized' });
    const init = await c.answer(1);
    assert.equal(init.result?.protocolVersion, '2025-11-25');
    assert.equal(c.service.era, 'legacy');
    assert.ok(c.service.session !== undefined);
    c.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await c.answer(2);
    assert.deepEqual(
      (list.result!.tools as { name: string }[]).map((t) => t.name),
      ['slow', 'steps', 'ask_name'],
    );
  });

  for (const [what, options] of [
    ['', {}],
    [', rate limited', { rateLimit: { requests: 100, concurrent: 10 } }],
  ] as const) {
    test(`an answer to the server's elicitation that is not a valid response fails it at once, unanswered${what}`, async () => {
      const c = connect(testServer().server, options);
      c.send(
        {
          ...initialize,
          params: { ...initialize.params, capabilities: { elicitation: {} } },
        } as JsonRpcMessage,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      );
      await c.answer(1);
      c.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask_name' } });
      const asked = () => c.lines.find((l) => l.method === 'elicitation/create');
      await until(() => asked() !== undefined, WAIT_MS, 'the elicitation');
      c.send(`{"jsonrpc":"2.0","id":${JSON.stringify(asked()!.id)},"result":"Ada"}`);
      const call = await c.answer(2);
      assert.equal(call.error?.code, -32603, JSON.stringify(call));
      assert.equal(
        call.error?.message,
        'The answer to "elicitation/create" is not a valid JSON-RPC response: "result" must be an object',
      );
      await settle();
      assert.deepEqual(
        c.lines.filter((l) => l.id === asked()!.id && l.method === undefined),
        [],
        'the invalid answer is not answered',
      );
    });
  }

  test('a 2026-07-28 request on a legacy connection is refused with -32600, and the session goes on', async () => {
    const c = connect(testServer().server);
    c.send(initialize, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await c.answer(1);
    c.send(modern(2, 'server/discover'), { jsonrpc: '2.0', id: 3, method: 'ping' });
    const refused = await c.answer(2);
    assert.equal(refused.error?.code, -32600);
    assert.match(refused.error!.message, /2025 era/);
    assert.deepEqual((await c.answer(3)).result, {});
  });

  test('stdin ending ends the session and the service', async () => {
    const c = connect(testServer().server);
    c.send(initialize);
    await c.answer(1);
    const session = c.service.session!;
    assert.equal(session.isClosed, false);
    c.stdin.end();
    await c.service.ended;
    assert.equal(session.isClosed, true);
    assert.deepEqual(c.errors, []);
  });
});

describe('serveStdio: the 2026-07-28 era', () => {
  test('server/discover opens a modern connection and is answered', async () => {
    const c = connect(testServer().server);
    c.send(modern('d', 'server/discover'));
    const discover = await c.answer('d');
    assert.deepEqual(discover.result?.supportedVersions, ['2026-07-28']);
    assert.equal(discover.result?.resultType, 'complete');
    assert.equal(c.service.era, 'modern');
    assert.equal(c.service.session, undefined);
  });

  test('lines that are not JSON-RPC are answered as before and do not choose the era', async () => {
    const c = connect(testServer().server);
    c.send('nope', '{"jsonrpc":"2.0","id":5}');
    await until(() => c.lines.length === 2, WAIT_MS, 'two error lines');
    assert.deepEqual(
      c.lines.map((l) => l.error?.code),
      [-32700, -32600],
    );
    assert.equal(c.service.era, undefined);
    c.send(modern(1, 'tools/list'));
    assert.equal((await c.answer(1)).result?.resultType, 'complete');
  });

  test('a refused request is answered with its error and its id', async () => {
    const c = connect(testServer().server);
    c.send(
      modern(7, 'server/discover', { _meta: { [MetaKey.ProtocolVersion]: '2027-01-01' } }),
      modern(8, 'resources/list'),
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: { [MetaKey.ProtocolVersion]: '2026-07-28' } },
      },
    );
    assert.equal((await c.answer(7)).error?.code, -32022);
    assert.equal((await c.answer(8)).error?.code, -32601, 'resources are not advertised');
    assert.equal((await c.answer(9)).error?.code, -32602, 'no clientCapabilities in the envelope');
  });

  test('a refused first modern request chooses no era: the client may fall back to initialize', async () => {
    const c = connect(testServer().server);
    c.send(modern(1, 'server/discover', { _meta: { [MetaKey.ProtocolVersion]: '2027-01-01' } }));
    assert.equal((await c.answer(1)).error?.code, -32022);
    assert.equal(c.service.era, undefined);
    c.send({ ...initialize, id: 2 });
    assert.equal((await c.answer(2)).result?.protocolVersion, '2025-11-25');
    assert.equal(c.service.era, 'legacy');
  });

  test('initialize on a modern connection is refused with -32600 naming the era', async () => {
    const c = connect(testServer().server);
    c.send(modern(1, 'server/discover'));
    await c.answer(1);
    c.send({ ...initialize, id: 2 });
    const refused = await c.answer(2);
    assert.equal(refused.error?.code, -32600);
    assert.match(refused.error!.message, /this connection speaks 2026-07-28/);
  });

  test('tools/call writes its progress before its result', async () => {
    const c = connect(testServer().server);
    c.send(modern(1, 'tools/call', { name: 'steps', _meta: { progressToken: 'p' } }));
    const result = await c.answer(1);
    assert.deepEqual(result.result?.content, [{ type: 'text', text: 'done' }]);
    const order = c.lines.map((l) =>
      l.method === 'notifications/progress' ? `p${l.params?.progress}` : l.id,
    );
    assert.deepEqual(order, ['p1', 'p2', 1]);
    assert.equal(c.lines[0].params?.progressToken, 'p');
  });

  test('an elicitation is one input_required round, completed by the retry', async () => {
    const c = connect(testServer().server);
    c.send(modern(1, 'tools/call', { name: 'ask_name' }));
    const round = (await c.answer(1)).result!;
    assert.equal(round.resultType, 'input_required');
    const requests = round.inputRequests as Record<string, { method: string }>;
    const [key] = Object.keys(requests);
    assert.equal(requests[key].method, 'elicitation/create');
    c.send(
      modern(2, 'tools/call', {
        name: 'ask_name',
        inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
        requestState: round.requestState,
      }),
    );
    const done = (await c.answer(2)).result!;
    assert.equal(done.resultType, 'complete');
    assert.deepEqual(done.content, [{ type: 'text', text: 'Hello Ada' }]);
  });

  test('requests run concurrently, and notifications/cancelled aborts one: no answer is written', async () => {
    const { server, aborted } = testServer();
    const c = connect(server);
    c.send(modern('slow-1', 'tools/call', { name: 'slow' }), modern(2, 'tools/list'));
    await c.answer(2);
    c.send(cancel('slow-1'));
    await until(() => aborted.length === 1, WAIT_MS, 'the slow handler to abort');
    assert.deepEqual(aborted, ['slow-1']);
    c.send(modern(3, 'tools/list'));
    await c.answer(3);
    await settle();
    assert.equal(
      c.lines.some((l) => l.id === 'slow-1'),
      false,
    );
  });

  test('an id in use by a request in flight is refused; the first request is untouched', async () => {
    const { server, aborted } = testServer();
    const c = connect(server);
    c.send(modern(1, 'tools/call', { name: 'slow' }), modern(1, 'tools/list'));
    assert.equal((await c.answer(1)).error?.code, -32600);
    c.send(cancel(1));
    await until(() => aborted.length === 1, WAIT_MS, 'the slow handler to abort');
  });

  test('listen streams: ack first, changes tagged with their id, demultiplexed, cancel ends one', async () => {
    const { server } = testServer();
    const c = connect(server);
    c.send(
      modern('a', 'subscriptions/listen', {
        notifications: { toolsListChanged: true, promptsListChanged: true },
      }),
      modern(7, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
    );
    await until(() => c.tagged('a').length === 1 && c.tagged(7).length === 1, WAIT_MS, 'both acks');
    const ack = c.tagged('a')[0];
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params?.notifications, { toolsListChanged: true }, 'prompts are not advertised');

    server.tool({ name: 'late' }, () => ({ content: [] }));
    await until(() => c.tagged('a').length === 2 && c.tagged(7).length === 2, WAIT_MS, 'the change on both');
    assert.equal(c.tagged('a')[1].method, 'notifications/tools/list_changed');
    assert.equal(c.tagged(7)[1].method, 'notifications/tools/list_changed');

    c.send(cancel('a'), modern(9, 'tools/list'));
    await c.answer(9);
    server.tool({ name: 'later' }, () => ({ content: [] }));
    await until(() => c.tagged(7).length === 3, WAIT_MS, 'the second change on 7');
    await settle();
    assert.equal(c.tagged('a').length, 2, 'a cancelled stream hears nothing more');
    assert.equal(
      c.lines.some((l) => l.id === 'a'),
      false,
      'nor gets a result',
    );

    await c.service.close();
    const end = c.lines.find((l) => l.id === 7);
    assert.deepEqual(end?.result, { resultType: 'complete', _meta: { [MetaKey.SubscriptionId]: 7 } });
  });

  test('a listen whose filter honours nothing is acknowledged and ended at once', async () => {
    const c = connect(testServer().server);
    c.send(modern('l', 'subscriptions/listen', { notifications: { promptsListChanged: true } }));
    const end = await c.answer('l');
    assert.equal(end.result?.resultType, 'complete');
    assert.equal(c.tagged('l')[0].method, 'notifications/subscriptions/acknowledged');
  });

  test('stdin ending stops listen streams and aborts requests in flight', async () => {
    const { server, aborted } = testServer();
    const c = connect(server);
    c.send(
      modern('l', 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
      modern('s', 'tools/call', { name: 'slow' }),
    );
    await until(() => c.tagged('l').length === 1, WAIT_MS, 'the ack');
    c.stdin.end();
    await c.service.ended;
    await until(() => aborted.length === 1, WAIT_MS, 'the slow handler to abort');
    const before = c.lines.length;
    server.tool({ name: 'late' }, () => ({ content: [] }));
    await settle();
    assert.equal(c.lines.length, before);
    assert.equal(server.events.size, 1, 'only the sessions listen to the server events');
  });

  test('the server never writes a request to stdout', async () => {
    const c = connect(testServer().server);
    c.send(modern(1, 'tools/call', { name: 'ask_name' }), modern(2, 'tools/call', { name: 'steps' }));
    await c.answer(1);
    await c.answer(2);
    assert.equal(
      c.lines.some((l) => l.method !== undefined && l.id !== undefined),
      false,
    );
  });
});

describe('serveStdio: hostile input', () => {
  test('whatever the lines, each is answered or ignored, and stdout never carries a request', async () => {
    const method = fc.constantFrom(
      'server/discover',
      'tools/call',
      'subscriptions/listen',
      'initialize',
      'x',
    );
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method,
        params: fc.oneof(
          fc.anything(),
          fc.record({ _meta: fc.oneof(fc.anything(), fc.constant(ENVELOPE)), name: fc.string() }),
        ),
      },
      { requiredKeys: ['jsonrpc'] },
    );
    const line = fc.oneof(
      message.map((m) => JSON.stringify(m)),
      fc.string().filter((s) => !s.includes('\n')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (lines) => {
        const c = connect(testServer().server);
        c.send(...lines);
        c.stdin.end();
        await c.service.ended;
        await settle();
        for (const l of c.lines) {
          assert.equal(l.jsonrpc, '2.0');
          assert.ok(!(l.method !== undefined && l.id !== undefined), JSON.stringify(l));
        }
      }),
      fuzzRuns(60),
    );
  });
});
