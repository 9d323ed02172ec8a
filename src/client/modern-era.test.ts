import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { ResponseLostError } from '../peer/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import { Server } from '../server/server.js';
import { ModernStdio } from '../server/stdio/stdio-modern.js';
import {
  cut,
  error,
  modern,
  openSse,
  result,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from '../test-support/scripted-http.js';
import { within } from '../test-support/time-limit.js';
import { toolText } from '../test-support/tool-text.js';
import { Client, type ClientOptions } from './client.js';
import type { ClientSession } from './client-session.js';
import { ModernHTTPClientConnection } from './http/modern-http-client-connection.js';
import { InvalidServerResultError } from './server-result.js';

/*
 * The modern era's request loop (spec 2026-07-28: MRTR, resultType, -32020, broken streams) against a
 * scripted server that answers each round exactly as a case needs.
 */

/** Hard to echo by accident: quotes, escapes, U+2028, non-ASCII, a JWT-like dot form. */
const STATE = (tag: string) => `v1.${tag}."\\/\u2028é\u0000${'x'.repeat(200)}.sig`;
const ELICIT = {
  method: 'elicitation/create',
  params: {
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
};
const TOOLS = [
  { name: 'ask', inputSchema: { type: 'object' } },
  { name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'write', inputSchema: { type: 'object' } },
];
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** Counts, per key, how many times a scripted behaviour was hit. */
const counts = new Map<string, number>();
const bump = (key: string) => {
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
};

describe('ModernEra over a scripted server', () => {
  let server: ScriptedServer;
  let session: ClientSession;
  let bare: ClientSession;

  before(async () => {
    server = await scriptedServer(
      modern(
        async (hit, res) => {
          const m = hit.message;
          const p = m.params ?? {};
          const args = p.arguments ?? {};
          if (m.method === 'tools/list') {
            if (counts.get('list-input') === 1)
              return sendJson(res, result(m.id, { resultType: 'input_required', requestState: 's' }));
            return sendJson(res, result(m.id, { tools: TOOLS }));
          }
          if (m.method === 'resources/read') {
            const n = bump(`read:${p.uri}`);
            if (p.uri === 'cut:always' || n === 1) return cutAfterHeaders(res);
            return sendJson(res, result(m.id, { contents: [] }));
          }
          switch (args.mode) {
            case 'mrtr': // round 1 asks; round 2 must carry the answer and the state
              if (p.requestState === undefined)
                return sendJson(
                  res,
                  result(m.id, {
                    resultType: 'input_required',
                    inputRequests: { name: ELICIT },
                    requestState: STATE(args.who),
                  }),
                );
              if (args.who === 'A' && bump('delayA') === 1) await new Promise((r) => setTimeout(r, 50));
              return sendJson(
                res,
                result(
                  m.id,
                  text(`${p.inputResponses?.name?.content?.name}:${p.requestState === STATE(args.who)}`),
                ),
              );
            case 'stateless': // asks without state: the retry must not invent one
              if (p.inputResponses === undefined)
                return sendJson(
                  res,
                  result(m.id, { resultType: 'input_required', inputRequests: { name: ELICIT } }),
                );
              return sendJson(res, result(m.id, text(`has state: ${'requestState' in p}`)));
            case 'forever':
              return sendJson(
                res,
                result(m.id, { resultType: 'input_required', requestState: STATE(String(bump('forever'))) }),
              );
            case 'sample':
              return sendJson(
                res,
                result(m.id, {
                  resultType: 'input_required',
                  inputRequests: {
                    s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
                  },
                }),
              );
            case 'listed': // input requests as a list, not by key
              return sendJson(res, result(m.id, { resultType: 'input_required', inputRequests: [ELICIT] }));
            case 'stale': // -32020 once: the client re-reads tools/list and retries
              return bump('stale') === 1
                ? sendJson(res, error(m.id, -32020, 'header mismatch'), 400)
                : sendJson(res, result(m.id, text('fresh')));
            case 'mismatch':
              return sendJson(res, error(m.id, -32020, 'header mismatch'), 400);
            case 'task':
              return sendJson(res, result(m.id, { resultType: 'task', taskId: 't1' }));
            case 'lose':
              return bump(`${p.name}:lose`) === 1
                ? cutAfterHeaders(res)
                : sendJson(res, result(m.id, text('second time')));
          }
          sendJson(res, result(m.id, text('plain')));
        },
        { tools: {}, resources: {} },
      ),
    );
    const connect = (options: ClientOptions) =>
      new Client(
        { name: 'era-test', version: '1' },
        { requestTimeoutMs: 5000, maxInputRounds: 3, ...options },
      ).connect(new ModernHTTPClientConnection(server.url));
    session = await within(
      connect({ elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } }),
      10_000,
      'connect',
    );
    bare = await within(connect({}), 10_000, 'connect');
    await session.listTools();
    await bare.listTools();
  });

  after(async () => {
    await Promise.all([session.close(), bare.close()]);
    await server.close();
  });

  const calls = (mode: string) =>
    server.posts('tools/call').filter((h) => h.message.params.arguments?.mode === mode);

  test('input_required: answered with the handler, retried under a new id with the state byte-exact', async () => {
    const r = await session.callTool('ask', { mode: 'mrtr', who: 'B' });
    assert.equal(toolText(r), 'Ada:true');
    const [first, second] = calls('mrtr');
    assert.notEqual(first.message.id, second.message.id);
    assert.equal(second.message.params.requestState, STATE('B'));
    assert.deepEqual(second.message.params.inputResponses, {
      name: { action: 'accept', content: { name: 'Ada' } },
    });
    assert.deepEqual(second.message.params.arguments, { mode: 'mrtr', who: 'B' });
    assert.equal(second.message.params._meta?.inputResponses, undefined, 'in params, never in _meta');
  });

  test('no requestState given: none sent back', async () => {
    assert.equal(toolText(await session.callTool('ask', { mode: 'stateless' })), 'has state: false');
  });

  test('two concurrent calls each echo their own state', async () => {
    const [a, b] = await Promise.all([
      session.callTool('ask', { mode: 'mrtr', who: 'A' }),
      session.callTool('ask', { mode: 'mrtr', who: 'C' }),
    ]);
    assert.equal(toolText(a), 'Ada:true');
    assert.equal(toolText(b), 'Ada:true');
    const ids = server.posts('tools/call').map((h) => h.message.id);
    assert.equal(new Set(ids).size, ids.length, 'every round has its own id');
  });

  test('maxInputRounds bounds the rounds', async () => {
    await assert.rejects(session.callTool('ask', { mode: 'forever' }), /still needed input after 3 rounds/);
    assert.equal(calls('forever').length, 4);
  });

  test('a round this client has no handler for fails naming the capability, and is not retried', async () => {
    await assert.rejects(bare.callTool('ask', { mode: 'sample' }), (err: McpError) => {
      assert.ok(err instanceof McpError);
      assert.match(err.message, /sampling\/createMessage/);
      assert.match(err.message, /declare sampling \(the Client `sampling` option\)/);
      return true;
    });
    assert.equal(calls('sample').length, 1);
  });

  test('an input_required round that is not one fails as the server’s fault, asking no handler, sending nothing again', async () => {
    await assert.rejects(session.callTool('ask', { mode: 'listed' }), (err: McpError) => {
      assert.ok(err instanceof InvalidServerResultError);
      assert.equal(err.field, 'result.inputRequests');
      assert.match(err.message, /result\.inputRequests must be an object of input requests by key/);
      return true;
    });
    assert.equal(calls('listed').length, 1);
  });

  test('-32020 on tools/call: the tool list is read once more and the call retried once', async () => {
    const lists = server.posts('tools/list').length;
    assert.equal(toolText(await session.callTool('write', { mode: 'stale' })), 'fresh');
    assert.equal(server.posts('tools/list').length, lists + 1);
    assert.equal(calls('stale').length, 2);
  });

  test('-32020 again after the retry reaches the caller; no third call', async () => {
    await assert.rejects(
      session.callTool('write', { mode: 'mismatch' }),
      (err: McpError) => err instanceof McpError && err.code === -32020,
    );
    assert.equal(calls('mismatch').length, 2);
  });

  test('an unknown resultType is an McpError carrying the result', async () => {
    await assert.rejects(session.callTool('write', { mode: 'task' }), (err: McpError) => {
      assert.ok(err instanceof McpError);
      assert.match(err.message, /resultType "task"/);
      assert.deepEqual((err.data as { result: unknown }).result, { resultType: 'task', taskId: 't1' });
      return true;
    });
  });

  test('input_required on a method the spec does not allow it on is an error', async () => {
    counts.set('list-input', 1);
    try {
      await assert.rejects(session.listTools(), /allows only on tools\/call/);
    } finally {
      counts.set('list-input', 0);
    }
  });

  test('a lost answer: resources/read and a readOnlyHint tool are re-issued under a new id', async () => {
    await within(session.readResource('file:///once'), 10_000, 'read');
    const reads = server.posts('resources/read').filter((h) => h.message.params.uri === 'file:///once');
    assert.equal(reads.length, 2);
    assert.notEqual(reads[0].message.id, reads[1].message.id);
    assert.equal(
      toolText(await within(session.callTool('peek', { mode: 'lose' }), 10_000, 'peek')),
      'second time',
    );
  });

  test('a lost answer to a tool without hints: ResponseLostError, sent once', async () => {
    await assert.rejects(
      within(session.callTool('write', { mode: 'lose' }), 10_000, 'write'),
      ResponseLostError,
    );
    assert.equal(
      server
        .posts('tools/call')
        .filter((h) => h.message.params.name === 'write' && h.message.params.arguments.mode === 'lose')
        .length,
      1,
    );
  });

  test('a read lost every time gives up after two re-issues', async () => {
    await assert.rejects(within(session.readResource('cut:always'), 10_000, 'read'), ResponseLostError);
    assert.equal(
      server.posts('resources/read').filter((h) => h.message.params.uri === 'cut:always').length,
      3,
    );
  });
});

/** An SSE answer that breaks before any message. */
function cutAfterHeaders(res: Parameters<typeof openSse>[0]) {
  openSse(res);
  setTimeout(() => cut(res), 10);
}

test('MRTR against our own Server over the in-memory transport (a stdio-like connection)', async () => {
  const server = new Server({ name: 'mem', version: '1' });
  server.tool({ name: 'ask_name', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const reply = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return text(`Hello ${String(reply.content?.name)}`);
  });
  const [serverEnd, clientEnd] = createMemoryPair();
  const served = new ModernStdio(server, serverEnd, () => {});
  serverEnd.start(served);
  const client = new Client(
    { name: 'mem', version: '1' },
    { requestTimeoutMs: 5000, elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
  );
  const session = await within(client.connect(clientEnd), 10_000, 'connect');
  try {
    assert.equal(session.era, 'modern');
    assert.equal(toolText(await within(session.callTool('ask_name'), 10_000, 'call')), 'Hello Ada');
  } finally {
    await session.close();
    await server.close();
  }
});
