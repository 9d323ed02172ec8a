import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, Params } from '../../jsonrpc/types.js';
import { MetaKey } from '../../protocol/envelope.js';
import type { ClientCapabilities, Result } from '../../protocol/types.js';
import { ManualClock } from '../../test-support/manual-clock.js';
import { ModernScope } from '../client-scope.js';
import { inputRequired } from '../input-required.js';
import { Server } from '../server.js';
import { ModernCall } from './modern-call.js';

const INFO = { name: 'modern-unit', version: '1.2.3' };
const ELICIT_CAPS: ClientCapabilities = { elicitation: {} };
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/** A server whose tools ask the client in the ways a handler can; `seen` records what the retry saw. */
function makeServer(clock?: ManualClock) {
  const seen: { inputResponses?: unknown; requestState?: unknown; signal?: AbortSignal; greetRuns: number } =
    {
      greetRuns: 0,
    };
  let runs = 0;
  const server = new Server(INFO, clock === undefined ? {} : { clock, requestStateTtlMs: 1000 });
  server.tool({ name: 'greet', inputSchema: { type: 'object' } }, async (args, ctx) => {
    seen.greetRuns++;
    const reply = await ctx.elicit({ message: 'Your name?', requestedSchema: nameSchema as never });
    return {
      content: [{ type: 'text', text: `Hello ${String(reply.content?.name)} ${JSON.stringify(args)}` }],
    };
  });
  server.tool({ name: 'pair', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const [a, b] = await Promise.all([
      ctx.elicit({ message: 'a?', requestedSchema: nameSchema as never }),
      ctx.listRoots(),
    ]);
    return { content: [{ type: 'text', text: `${a.action} ${b.roots.length}` }] };
  });
  server.tool({ name: 'fickle', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    // Asks for elicitation on the first run and for roots in the same place on the next: not deterministic.
    if (runs++ === 0) await ctx.elicit({ message: 'a?', requestedSchema: nameSchema as never });
    else await ctx.listRoots();
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.tool({ name: 'own', inputSchema: { type: 'object' } }, (_args, ctx) => {
    if (ctx.inputResponses === undefined) {
      return inputRequired({
        inputRequests: {
          city: { method: 'elicitation/create', params: { message: 'City?', requestedSchema: nameSchema } },
        },
        state: { step: 1 },
      });
    }
    seen.inputResponses = ctx.inputResponses;
    seen.requestState = ctx.requestState;
    return { content: [{ type: 'text', text: 'own done' }] };
  });
  server.tool({ name: 'hang', inputSchema: { type: 'object' } }, (_args, ctx) => {
    seen.signal = ctx.signal;
    return new Promise((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
    );
  });
  server.resource({ uri: 'demo://readme', name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'hi' }] }));
  return { server, seen };
}

interface Call {
  run(): Promise<Result>;
  call: ModernCall;
  notes: JsonRpcNotification[];
}

let nextId = 1;
function modern(
  server: Server,
  method: string,
  params: Params = {},
  options: { caps?: ClientCapabilities; principal?: string } = {},
): Call {
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method, params };
  const scope = new ModernScope('2026-07-28', options.caps ?? {}, undefined, undefined, server.logging);
  const notes: JsonRpcNotification[] = [];
  const call = new ModernCall(
    server,
    request,
    scope,
    { notify: (m) => notes.push(m), transport: undefined },
    options.principal,
  );
  return { call, notes, run: async () => call.run() };
}

/** Asserts that `p` rejects with an McpError of `code`, and answers its data. */
async function refusedWith(p: Promise<unknown>, code: number): Promise<any> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof McpError, `expected an McpError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err.data;
  }
  assert.fail(`expected a ${code} error`);
}

/** Round 1 of `greet`: the input_required result. */
async function firstRound(server: Server, args = {}, principal?: string) {
  return modern(
    server,
    'tools/call',
    { name: 'greet', arguments: args },
    { caps: ELICIT_CAPS, principal },
  ).run();
}

describe('ModernCall result envelope', () => {
  it('marks a complete result and names the server, with caching hints on list, read and discover only', async () => {
    const { server } = makeServer();
    for (const [method, params] of [
      ['tools/list', {}],
      ['resources/list', {}],
      ['resources/read', { uri: 'demo://readme' }],
      ['server/discover', {}],
    ] as const) {
      const result = await modern(server, method, params).run();
      assert.equal(result.resultType, 'complete', method);
      assert.deepEqual(result._meta, { [MetaKey.ServerInfo]: INFO }, method);
      assert.equal(result.ttlMs, 0, method);
      assert.equal(result.cacheScope, 'private', method);
    }
    const own = await modern(
      server,
      'tools/call',
      { name: 'own', arguments: {} },
      { caps: ELICIT_CAPS },
    ).run();
    assert.equal(own.resultType, 'input_required');
    assert.equal('ttlMs' in own || 'cacheScope' in own, false);
  });

  it('answers -32603 when a method that takes no rounds answers input_required, naming those that do', async () => {
    const { server } = makeServer();
    const asking = () => inputRequired({ inputRequests: { r: { method: 'roots/list' } } });
    server.answerWith({ 'tools/list': asking, 'prompts/list': async () => asking() });
    for (const method of ['tools/list', 'prompts/list']) {
      await assert.rejects(modern(server, method).run(), (err: Error) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, ErrorCode.InternalError);
        assert.match(
          err.message,
          new RegExp(`The ${method} handler asked the client for input, .*tools/call`),
        );
        return true;
      });
    }
  });

  it('leaves caching hints off a tools/call result', async () => {
    const { server } = makeServer();
    const first = await firstRound(server);
    const done = await modern(
      server,
      'tools/call',
      {
        name: 'greet',
        arguments: {},
        requestState: first.requestState,
        inputResponses: { 'mcpwire.0': { action: 'accept', content: { name: 'Ada' } } },
      },
      { caps: ELICIT_CAPS },
    ).run();
    assert.equal(done.resultType, 'complete');
    assert.equal('ttlMs' in done || 'cacheScope' in done, false);
    assert.deepEqual(done._meta, { [MetaKey.ServerInfo]: INFO });
  });
});

describe('ModernCall multi-round trips', () => {
  it('asks with input_required, then completes on the retry with the answers and the state', async () => {
    const { server } = makeServer();
    const first = await firstRound(server, { x: 1 });
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(first.inputRequests, {
      'mcpwire.0': {
        method: 'elicitation/create',
        params: { message: 'Your name?', requestedSchema: nameSchema },
      },
    });
    assert.equal(typeof first.requestState, 'string');
    assert.deepEqual(first._meta, { [MetaKey.ServerInfo]: INFO });
    const done = await modern(
      server,
      'tools/call',
      {
        name: 'greet',
        arguments: { x: 1 },
        inputResponses: { 'mcpwire.0': { action: 'accept', content: { name: 'Ada' } } },
        requestState: first.requestState,
      },
      { caps: ELICIT_CAPS },
    ).run();
    assert.deepEqual(done.content, [{ type: 'text', text: 'Hello Ada {"x":1}' }]);
  });

  it('makes two calls of one turn (Promise.all) one round with two keys', async () => {
    const { server } = makeServer();
    const caps = { elicitation: {}, roots: {} };
    const first = await modern(server, 'tools/call', { name: 'pair', arguments: {} }, { caps }).run();
    assert.deepEqual(Object.keys(first.inputRequests as object).sort(), ['mcpwire.0', 'mcpwire.1']);
    const done = await modern(
      server,
      'tools/call',
      {
        name: 'pair',
        arguments: {},
        requestState: first.requestState,
        inputResponses: {
          'mcpwire.0': { action: 'decline' },
          'mcpwire.1': { roots: [{ uri: 'file:///a' }] },
        },
      },
      { caps },
    ).run();
    assert.deepEqual(done.content, [{ type: 'text', text: 'decline 1' }]);
  });

  for (const [answer, field] of [
    [{ result: {} }, 'inputResponses["mcpwire.0"].action'],
    [{ action: 'accept', content: 'Ada' }, 'inputResponses["mcpwire.0"].content'],
    [{ action: 'accept', content: {} }, 'inputResponses["mcpwire.0"].content.name'],
    [{ action: 'accept', content: { name: 7 } }, 'inputResponses["mcpwire.0"].content.name'],
  ] as const) {
    it(`refuses ${JSON.stringify(answer)} with -32602 naming ${field}, before the handler runs`, async () => {
      const { server, seen } = makeServer();
      const first = await firstRound(server);
      const data = await refusedWith(
        modern(
          server,
          'tools/call',
          {
            name: 'greet',
            arguments: {},
            requestState: first.requestState,
            inputResponses: { 'mcpwire.0': answer },
          },
          { caps: ELICIT_CAPS },
        ).run(),
        ErrorCode.InvalidParams,
      );
      assert.deepEqual(data, { method: 'elicitation/create', field });
      assert.equal(seen.greetRuns, 1, 'the handler did not run on the wrong answer');
    });
  }

  it('fails a handler that changes its calls between rounds with a message saying so', async () => {
    const { server } = makeServer();
    const caps = { elicitation: {}, roots: {} };
    const first = await modern(server, 'tools/call', { name: 'fickle', arguments: {} }, { caps }).run();
    const done = await modern(
      server,
      'tools/call',
      {
        name: 'fickle',
        arguments: {},
        requestState: first.requestState,
        inputResponses: { 'mcpwire.0': { action: 'cancel' } },
      },
      { caps },
    ).run();
    assert.equal(done.isError, true);
    assert.match((done.content as { text: string }[])[0].text, /same calls in the same order/);
  });

  it("gives the handler's own inputRequired keys and state back on the retry", async () => {
    const { server, seen } = makeServer();
    const first = await modern(
      server,
      'tools/call',
      { name: 'own', arguments: {} },
      { caps: ELICIT_CAPS },
    ).run();
    assert.deepEqual(Object.keys(first.inputRequests as object), ['city']);
    const answers = { city: { action: 'accept', content: { name: 'Oslo' } } };
    const done = await modern(
      server,
      'tools/call',
      { name: 'own', arguments: {}, requestState: first.requestState, inputResponses: answers },
      { caps: ELICIT_CAPS },
    ).run();
    assert.equal(done.resultType, 'complete');
    assert.deepEqual(seen.inputResponses, answers);
    assert.deepEqual(seen.requestState, { step: 1 });
  });

  it('answers -32021 with a requiredCapabilities object when the request did not declare the capability', async () => {
    const { server } = makeServer();
    const data = await refusedWith(
      modern(server, 'tools/call', { name: 'greet', arguments: {} }, { caps: {} }).run(),
      ErrorCode.MissingRequiredClientCapability,
    );
    assert.deepEqual(data, { requiredCapabilities: { elicitation: { form: {} } } });
    // The handler's own requests are checked the same way.
    const own = await refusedWith(
      modern(server, 'tools/call', { name: 'own', arguments: {} }, { caps: { roots: {} } }).run(),
      ErrorCode.MissingRequiredClientCapability,
    );
    assert.deepEqual(own, { requiredCapabilities: { elicitation: { form: {} } } });
  });
});

describe('ModernCall requestState checks', () => {
  const retry = (server: Server, state: unknown, over: { args?: object; principal?: string } = {}) =>
    modern(
      server,
      'tools/call',
      {
        name: 'greet',
        arguments: over.args ?? {},
        requestState: state,
        inputResponses: { 'mcpwire.0': { action: 'accept', content: { name: 'Eve' } } },
      },
      { caps: ELICIT_CAPS, principal: over.principal },
    ).run();

  it('refuses a tampered state with -32602 and reason mac', async () => {
    const { server } = makeServer();
    const token = (await firstRound(server)).requestState as string;
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const data = await refusedWith(retry(server, token.slice(0, -1) + last), ErrorCode.InvalidParams);
    assert.equal(data.reason, 'mac');
    assert.equal((await refusedWith(retry(server, 'junk'), ErrorCode.InvalidParams)).reason, 'malformed');
  });

  it('refuses an expired state with reason expired', async () => {
    const clock = new ManualClock();
    const { server } = makeServer(clock);
    const token = (await firstRound(server)).requestState;
    clock.advance(999);
    assert.equal((await retry(server, token)).resultType, 'complete');
    clock.advance(1);
    assert.equal((await refusedWith(retry(server, token), ErrorCode.InvalidParams)).reason, 'expired');
  });

  it("refuses another principal's state, and the state of other arguments, with reason bind", async () => {
    const { server } = makeServer();
    const token = (await firstRound(server, { x: 1 }, 'alice')).requestState;
    assert.equal((await retry(server, token, { args: { x: 1 }, principal: 'alice' })).resultType, 'complete');
    const other = await refusedWith(
      retry(server, token, { args: { x: 1 }, principal: 'mallory' }),
      ErrorCode.InvalidParams,
    );
    assert.equal(other.reason, 'bind');
    const anonymous = await refusedWith(retry(server, token, { args: { x: 1 } }), ErrorCode.InvalidParams);
    assert.equal(anonymous.reason, 'bind');
    const args = await refusedWith(
      retry(server, token, { args: { x: 2 }, principal: 'alice' }),
      ErrorCode.InvalidParams,
    );
    assert.equal(args.reason, 'bind');
  });

  it('refuses the state of one tool on another', async () => {
    const { server } = makeServer();
    const token = (await firstRound(server)).requestState;
    const data = await refusedWith(
      modern(
        server,
        'tools/call',
        { name: 'own', arguments: {}, requestState: token },
        { caps: ELICIT_CAPS },
      ).run(),
      ErrorCode.InvalidParams,
    );
    assert.equal(data.reason, 'bind');
  });
});

describe('ModernCall errors and cancellation', () => {
  it('answers a resource that is not found with -32602 carrying its URI', async () => {
    const { server } = makeServer();
    const data = await refusedWith(
      modern(server, 'resources/read', { uri: 'demo://missing' }).run(),
      ErrorCode.InvalidParams,
    );
    assert.deepEqual(data, { uri: 'demo://missing' });
  });

  it("aborts the handler's signal with the reason given to abort()", async () => {
    const { server, seen } = makeServer();
    const { call, run } = modern(server, 'tools/call', { name: 'hang', arguments: {} });
    const outcome = run();
    await new Promise((r) => setImmediate(r));
    assert.equal(seen.signal?.aborted, false);
    const reason = new Error('client went away');
    call.abort(reason);
    assert.equal(call.aborted, true);
    assert.equal(seen.signal?.aborted, true);
    assert.equal(seen.signal?.reason, reason);
    // The transport writes nothing after an abort; the call itself still settles.
    await outcome.catch(() => {});
  });
});
