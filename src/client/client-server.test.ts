import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Connection } from '../peer/connection.js';
import { CapabilityError, RequestCancelledError, RequestTimeoutError } from '../peer/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import type { Root } from '../protocol/types.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { StandardSchemaV1 } from '../server/schema.js';
import { Server } from '../server/server.js';
import type { ServerOptions } from '../server/server-options.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { Client, type ClientOptions } from './client.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Waits, a bounded number of event-loop turns, until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await tick();
  }
  throw new Error(`condition never held: ${check}`);
}

/** A Connection that records what goes out through it. */
function spy(connection: Connection): { connection: Connection; sent: JsonRpcMessage[] } {
  const sent: JsonRpcMessage[] = [];
  return {
    sent,
    connection: {
      start: (receiver) => connection.start(receiver),
      send: (message, related) => {
        sent.push(message);
        return connection.send(message, related);
      },
      close: () => connection.close(),
    },
  };
}

async function setup(
  build: (server: Server) => void,
  clientOptions: ClientOptions = {},
  serverOptions: ServerOptions = {},
) {
  const server = new Server({ name: 'e2e-server', version: '1.0.0' }, { pageSize: 2, ...serverOptions });
  build(server);
  const [clientEnd, serverEnd] = createMemoryPair();
  const clientSpy = spy(clientEnd);
  const serverSpy = spy(serverEnd);
  const serverSession: ServerSession = server.connect(serverSpy.connection);
  const client = new Client({ name: 'e2e-client', version: '1.0.0' }, clientOptions);
  const session = await client.connect(clientSpy.connection);
  await until(() => serverSession.initialized);
  return { server, serverSession, session, clientSent: clientSpy.sent, serverSent: serverSpy.sent };
}

/** A Standard Schema that accepts anything but publishes a strict JSON Schema: a server that lies. */
function lyingSchema(published: Record<string, unknown>): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value) => ({ value }),
      jsonSchema: { input: () => published, output: () => published },
    },
  };
}

const temperatureSchema = {
  type: 'object',
  properties: { temperature: { type: 'number' } },
  required: ['temperature'],
};

describe('Client with our Server', () => {
  test('tools: the iterator walks every page; calls return results', async () => {
    const { session } = await setup((server) => {
      for (const name of ['a', 'b', 'c', 'd', 'e']) {
        server.tool(
          { name, inputSchema: { type: 'object', properties: { x: { type: 'number' } } } },
          (args) => ({
            content: [{ type: 'text', text: `${name}:${args.x}` }],
          }),
        );
      }
    });
    const first = await session.listTools();
    assert.deepEqual(
      first.tools.map((t) => t.name),
      ['a', 'b'],
    );
    assert.equal(typeof first.nextCursor, 'string');
    const names: string[] = [];
    for await (const tool of session.tools()) names.push(tool.name);
    assert.deepEqual(names, ['a', 'b', 'c', 'd', 'e']);
    const result = await session.callTool('c', { x: 7 });
    assert.deepEqual(result.content, [{ type: 'text', text: 'c:7' }]);
  });

  test('tools: structuredContent is checked against the outputSchema, both ways', async () => {
    let reported: unknown = 21;
    const { session } = await setup((server) => {
      server.tool({ name: 'honest', outputSchema: temperatureSchema }, () => ({
        structuredContent: { temperature: 18 },
      }));
      server.tool({ name: 'liar', outputSchema: lyingSchema(temperatureSchema) }, () => ({
        structuredContent: { temperature: reported },
      }));
    });
    assert.deepEqual((await session.callTool('honest')).structuredContent, { temperature: 18 });
    assert.deepEqual((await session.callTool('liar')).structuredContent, { temperature: 21 });
    reported = 'warm';
    await assert.rejects(session.callTool('liar'), /"liar".*structuredContent\.temperature/);
  });

  test('resources: list, templates, read, and subscribe → resourceUpdated', async () => {
    const { server, session } = await setup((s) => {
      s.resource({ uri: 'file:///notes.txt', name: 'notes', mimeType: 'text/plain' }, (uri) => ({
        contents: [{ uri, text: 'remember the milk' }],
      }));
      s.resourceTemplate(
        { uriTemplate: 'file:///users/{id}', name: 'user' },
        { read: (uri, vars) => ({ contents: [{ uri, text: `user ${vars.id}` }] }) },
      );
    });
    const resources = [];
    for await (const r of session.resources()) resources.push(r.uri);
    assert.deepEqual(resources, ['file:///notes.txt']);
    const templates = [];
    for await (const t of session.resourceTemplates()) templates.push(t.uriTemplate);
    assert.deepEqual(templates, ['file:///users/{id}']);
    const notes = await session.readResource('file:///notes.txt');
    assert.deepEqual(notes.contents, [{ uri: 'file:///notes.txt', text: 'remember the milk' }]);
    const user = await session.readResource('file:///users/42');
    assert.deepEqual(user.contents, [{ uri: 'file:///users/42', text: 'user 42' }]);

    const updated: string[] = [];
    session.on('resourceUpdated', (p) => updated.push(p.uri));
    await session.subscribeResource('file:///notes.txt');
    server.resourceUpdated('file:///notes.txt');
    server.resourceUpdated('file:///other.txt');
    await until(() => updated.length === 1);
    await session.unsubscribeResource('file:///notes.txt');
    server.resourceUpdated('file:///notes.txt');
    await tick();
    assert.deepEqual(updated, ['file:///notes.txt']);
  });

  test('prompts with arguments, and completion of an argument', async () => {
    const { session } = await setup((s) => {
      s.prompt(
        {
          name: 'greet',
          arguments: [
            {
              name: 'language',
              required: true,
              complete: (value) => ['english', 'esperanto', 'french'].filter((l) => l.startsWith(value)),
            },
          ],
        },
        (args) => ({
          messages: [{ role: 'user', content: { type: 'text', text: `Say hello in ${args.language}` } }],
        }),
      );
    });
    const names = [];
    for await (const p of session.prompts()) names.push(p.name);
    assert.deepEqual(names, ['greet']);
    const prompt = await session.getPrompt('greet', { language: 'french' });
    assert.deepEqual(prompt.messages, [
      { role: 'user', content: { type: 'text', text: 'Say hello in french' } },
    ]);
    const done = await session.complete(
      { type: 'ref/prompt', name: 'greet' },
      { name: 'language', value: 'e' },
    );
    assert.deepEqual(done.completion.values, ['english', 'esperanto']);
  });

  test('setLoggingLevel filters the log events the server sends', async () => {
    const { session } = await setup((s) => {
      s.tool({ name: 'noisy' }, async (_args, ctx) => {
        await ctx.log('debug', 'details');
        await ctx.log('error', { failed: 'disk' }, 'storage');
        return { content: [] };
      });
    });
    const logs: unknown[] = [];
    session.on('log', (p) => logs.push([p.level, p.logger, p.data]));
    await session.setLoggingLevel('warning');
    await session.callTool('noisy');
    await tick();
    assert.deepEqual(logs, [['error', 'storage', { failed: 'disk' }]]);
  });

  test('ping both ways: each side answers an empty result', async () => {
    const { session, serverSession } = await setup(() => {});
    assert.deepEqual(await session.request('ping'), {});
    assert.deepEqual(await serverSession.request('ping'), {});
  });

  test('roots: setRoots → list_changed → the server reads the new roots', async () => {
    const initial: Root[] = [{ uri: 'file:///work', name: 'work' }];
    const { session, serverSession } = await setup(() => {}, { roots: initial });
    assert.deepEqual(await serverSession.listRoots(), { roots: initial });
    const seen: Root[][] = [];
    serverSession.onrootschanged = () => {
      serverSession.listRoots().then((r) => seen.push(r.roots));
    };
    await session.setRoots([{ uri: 'file:///home', name: 'home' }]);
    await until(() => seen.length === 1);
    assert.deepEqual(seen, [[{ uri: 'file:///home', name: 'home' }]]);
  });

  test('sampling: a tool asks the client to sample and returns what the model said', async () => {
    const { session } = await setup(
      (s) => {
        s.tool({ name: 'ask' }, async (_args, ctx) => {
          const answer = await ctx.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
            maxTokens: 20,
          });
          return { content: [answer.content as { type: 'text'; text: string }] };
        });
      },
      {
        sampling: (params) => ({
          role: 'assistant',
          content: { type: 'text', text: `Paris (max ${params.maxTokens})` },
          model: 'test-model',
        }),
      },
    );
    const result = await session.callTool('ask');
    assert.deepEqual(result.content, [{ type: 'text', text: 'Paris (max 20)' }]);
  });

  test('elicitation: a tool asks the user, who answers through the client (defaults filled in)', async () => {
    const { session } = await setup(
      (s) => {
        s.tool({ name: 'signup' }, async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'Your details?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string' }, newsletter: { type: 'boolean', default: true } },
              required: ['name'],
            },
          });
          return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
        });
      },
      {
        elicitation: {
          form: (params) => ({ action: 'accept', content: { name: params.message.slice(0, 4) } }),
        },
      },
    );
    const result = await session.callTool('signup');
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), {
      action: 'accept',
      content: { name: 'Your', newsletter: true },
    });
  });

  test('capability refusals on both sides send nothing', async () => {
    const { session, serverSession, clientSent, serverSent } = await setup((s) => {
      s.tool({ name: 't' }, () => ({ content: [] }));
    });
    const clientBefore = clientSent.length;
    await assert.rejects(session.listPrompts(), CapabilityError);
    await assert.rejects(session.readResource('file:///x'), CapabilityError);
    await assert.rejects(
      session.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }),
      CapabilityError,
    );
    assert.equal(clientSent.length, clientBefore);

    const serverBefore = serverSent.length;
    const sampling = serverSession.createMessage({ messages: [], maxTokens: 1 });
    await assert.rejects(sampling, CapabilityError);
    await assert.rejects(serverSession.listRoots(), CapabilityError);
    await assert.rejects(
      serverSession.elicit({ mode: 'url', message: 'm', elicitationId: 'e', url: 'https://x.test' }),
      CapabilityError,
    );
    assert.equal(serverSent.length, serverBefore);
  });

  test('protocol version negotiation: a client asking for 2025-06-18 gets it', async () => {
    const { session, serverSession } = await setup(() => {}, { protocolVersion: '2025-06-18' });
    assert.equal(session.protocolVersion, '2025-06-18');
    assert.equal(serverSession.protocolVersion, '2025-06-18');
    assert.equal(session.serverInfo.name, 'e2e-server');
  });
});

describe('Client with our Server: timeouts and cancellation', () => {
  /** A server with a tool that runs until the test lets it go, reporting progress on demand. */
  async function slowSetup(clientOptions: ClientOptions) {
    const calls: Array<{ signal: AbortSignal; progress(n: number): Promise<void>; finish(): void }> = [];
    const env = await setup((s) => {
      s.tool({ name: 'slow' }, (_args, ctx) => {
        return new Promise((resolve) => {
          calls.push({
            signal: ctx.signal,
            progress: (n) => ctx.sendProgress(n),
            finish: () => resolve({ content: [{ type: 'text', text: 'done' }] }),
          });
        });
      });
    }, clientOptions);
    await env.session.listTools();
    return { ...env, calls };
  }

  test('a request times out by the clock; the server handler sees its signal aborted', async () => {
    const clock = new ManualClock();
    const { session, calls } = await slowSetup({ clock, requestTimeoutMs: 1000 });
    const call = session.callTool('slow');
    await until(() => calls.length === 1);
    clock.advance(999);
    await tick();
    assert.equal(calls[0].signal.aborted, false);
    clock.advance(1);
    await assert.rejects(call, (err: Error) => err instanceof RequestTimeoutError && err.limit === 'timeout');
    await until(() => calls[0].signal.aborted);
  });

  test('progress resets the timeout, but never past maxTotalTimeoutMs', async () => {
    const clock = new ManualClock();
    const { session, calls } = await slowSetup({ clock, requestTimeoutMs: 1000, maxTotalTimeoutMs: 2500 });
    const progress: number[] = [];
    const call = session.callTool('slow', undefined, { onprogress: (p) => progress.push(p.progress) });
    let settled = false;
    call
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    await until(() => calls.length === 1);
    for (const n of [1, 2]) {
      clock.advance(800);
      await calls[0].progress(n);
      await until(() => progress.length === n);
    }
    // 1600 ms in: without the resets this would have timed out at 1000.
    clock.advance(800);
    await tick();
    assert.equal(settled, false);
    await calls[0].progress(3);
    await until(() => progress.length === 3);
    // 2400 ms in: progress keeps coming, but the hard limit is 2500.
    clock.advance(100);
    await assert.rejects(
      call,
      (err: Error) => err instanceof RequestTimeoutError && err.limit === 'maxTotalTimeoutMs',
    );
    await until(() => calls[0].signal.aborted);
  });

  test('the timeout a call gives overrides the client default', async () => {
    const clock = new ManualClock();
    const { session, calls } = await slowSetup({ clock, requestTimeoutMs: 1000 });
    const call = session.callTool('slow', undefined, { timeoutMs: 5000 });
    await until(() => calls.length === 1);
    clock.advance(4000);
    await tick();
    calls[0].finish();
    assert.deepEqual((await call).content, [{ type: 'text', text: 'done' }]);
  });

  test('aborting a call cancels it on the server, which sends no response', async () => {
    const { session, calls, serverSent } = await slowSetup({});
    const controller = new AbortController();
    const call = session.callTool('slow', undefined, { signal: controller.signal });
    await until(() => calls.length === 1);
    controller.abort('changed my mind');
    await assert.rejects(call, RequestCancelledError);
    await until(() => calls[0].signal.aborted);
    const before = serverSent.length;
    calls[0].finish();
    await tick();
    await tick();
    assert.equal(serverSent.length, before);
  });
});
