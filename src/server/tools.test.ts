import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { z } from 'zod';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { FakeClient, settle } from '../test-support/fake-client.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { Server } from './server.js';

const addSchema = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};

function newServer(options = {}) {
  return new Server({ name: 's', version: '1' }, options);
}

/** [1, <hole>, 3]: JSON.stringify writes the hole as null. */
function holed(): number[] {
  const array = new Array<number>(3);
  array[0] = 1;
  array[2] = 3;
  return array;
}

/** The JSON Schema type a value has in JavaScript, before any serialization ('null' for what has none). */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
    return typeof value;
  return typeof value === 'object' ? 'object' : 'null';
}

async function connected(server: Server) {
  const client = new FakeClient(server);
  await client.initialize();
  return client;
}

describe('tools/list', () => {
  test('publishes each tool as defined, with a default input schema', async () => {
    const server = newServer();
    server.tool(
      {
        name: 'add',
        title: 'Add',
        description: 'Adds',
        inputSchema: addSchema,
        annotations: { readOnlyHint: true },
      },
      () => ({ content: [] }),
    );
    server.tool({ name: 'now' }, () => ({ content: [] }));
    const client = await connected(server);
    const result = await client.result('tools/list');
    assert.deepEqual(result, {
      tools: [
        {
          name: 'add',
          title: 'Add',
          description: 'Adds',
          inputSchema: addSchema,
          annotations: { readOnlyHint: true },
        },
        { name: 'now', inputSchema: { type: 'object' } },
      ],
    });
  });

  test('pages through the tools with an opaque cursor, stable across removals', async () => {
    const server = newServer({ pageSize: 2 });
    const handles = ['t1', 't2', 't3', 't4', 't5'].map((name) =>
      server.tool({ name }, () => ({ content: [] })),
    );
    const client = await connected(server);
    const first = await client.result('tools/list');
    assert.deepEqual(
      first.tools.map((t: { name: string }) => t.name),
      ['t1', 't2'],
    );
    assert.equal(typeof first.nextCursor, 'string');
    // The next page's first item goes away: the page starts with the one after it.
    handles[2].remove();
    const second = await client.result('tools/list', { cursor: first.nextCursor });
    assert.deepEqual(
      second.tools.map((t: { name: string }) => t.name),
      ['t4', 't5'],
    );
    assert.equal(second.nextCursor, undefined);
  });

  test('an invalid cursor is -32602', async () => {
    const server = newServer();
    server.tool({ name: 't' }, () => ({ content: [] }));
    const client = await connected(server);
    for (const cursor of ['garbage', Buffer.from('p:1:0').toString('base64url')]) {
      const response = await client.call('tools/list', { cursor });
      assert.equal(response.error.code, ErrorCode.InvalidParams);
    }
  });

  test('lists only enabled tools', async () => {
    const server = newServer();
    server.tool({ name: 'a' }, () => ({ content: [] }));
    server.tool({ name: 'b' }, () => ({ content: [] })).disable();
    const client = await connected(server);
    const result = await client.result('tools/list');
    assert.deepEqual(
      result.tools.map((t: { name: string }) => t.name),
      ['a'],
    );
  });

  test('a duplicate name throws at registration', () => {
    const server = newServer();
    server.tool({ name: 'a' }, () => ({ content: [] }));
    assert.throws(() => server.tool({ name: 'a' }, () => ({ content: [] })), /already registered/);
  });
});

describe('tools/call', () => {
  test('runs the handler with the validated arguments and the context', async () => {
    const server = newServer();
    server.tool({ name: 'add', inputSchema: addSchema }, (args, ctx) => {
      const { a, b } = args as { a: number; b: number };
      return { content: [{ type: 'text', text: `${a + b} for ${ctx.scope.clientInfo?.name}` }] };
    });
    const client = await connected(server);
    const result = await client.result('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(result, { content: [{ type: 'text', text: '5 for fake-client' }] });
  });

  test('arguments failing the input schema are a tool execution error naming the field', async () => {
    const server = newServer();
    let ran = false;
    server.tool({ name: 'add', inputSchema: addSchema }, () => {
      ran = true;
      return { content: [] };
    });
    const client = await connected(server);
    const result = await client.result('tools/call', { name: 'add', arguments: { a: 'x', b: 1 } });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^Invalid arguments for tool "add": arguments\.a/);
    assert.equal(ran, false);
  });

  test('a handler that throws gives an isError result with its message', async () => {
    const server = newServer();
    server.tool({ name: 'boom' }, () => {
      throw new Error('disk full');
    });
    server.tool({ name: 'later' }, async () => {
      throw new Error('no network');
    });
    const client = await connected(server);
    assert.deepEqual(await client.result('tools/call', { name: 'boom' }), {
      content: [{ type: 'text', text: 'disk full' }],
      isError: true,
    });
    assert.deepEqual(await client.result('tools/call', { name: 'later' }), {
      content: [{ type: 'text', text: 'no network' }],
      isError: true,
    });
  });

  test('an McpError thrown by the handler is the JSON-RPC error of the call', async () => {
    const server = newServer();
    server.tool({ name: 'needs-url' }, () => {
      throw new McpError(ErrorCode.UrlElicitationRequired, 'Authorize first', { elicitations: [] });
    });
    const client = await connected(server);
    const response = await client.call('tools/call', { name: 'needs-url' });
    assert.deepEqual(response.error, {
      code: ErrorCode.UrlElicitationRequired,
      message: 'Authorize first',
      data: { elicitations: [] },
    });
  });

  test('an unknown or disabled tool is -32602', async () => {
    const server = newServer();
    server.tool({ name: 'off' }, () => ({ content: [] })).disable();
    const client = await connected(server);
    for (const name of ['missing', 'off']) {
      const response = await client.call('tools/call', { name });
      assert.deepEqual(response.error, { code: ErrorCode.InvalidParams, message: `Unknown tool: ${name}` });
    }
  });

  test('structuredContent valid against the outputSchema is returned, with its JSON as text', async () => {
    const server = newServer();
    const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    server.tool({ name: 'sum', outputSchema }, () => ({ structuredContent: { sum: 4 } }));
    const client = await connected(server);
    const listed = await client.result('tools/list');
    assert.deepEqual(listed.tools[0].outputSchema, outputSchema);
    assert.deepEqual(await client.result('tools/call', { name: 'sum' }), {
      structuredContent: { sum: 4 },
      content: [{ type: 'text', text: '{"sum":4}' }],
    });
  });

  test('structuredContent breaking the outputSchema is -32603 naming the tool and field', async () => {
    const errors: Error[] = [];
    const server = newServer({ onerror: (e: Error) => errors.push(e) });
    const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    server.tool({ name: 'sum', outputSchema }, () => ({ content: [], structuredContent: { sum: 'four' } }));
    server.tool({ name: 'none', outputSchema }, () => ({ content: [] }));
    server.tool({ name: 'failing', outputSchema }, () => ({
      content: [{ type: 'text', text: 'no' }],
      isError: true,
    }));
    const client = await connected(server);
    const bad = await client.call('tools/call', { name: 'sum' });
    assert.equal(bad.error.code, ErrorCode.InternalError);
    assert.match(bad.error.message, /Tool "sum".*structuredContent\.sum/);
    const missing = await client.call('tools/call', { name: 'none' });
    assert.equal(missing.error.code, ErrorCode.InternalError);
    assert.match(missing.error.message, /Tool "none".*no structuredContent/);
    // An error result need not conform.
    assert.equal((await client.result('tools/call', { name: 'failing' })).isError, true);
    assert.equal(errors.length, 2, 'the server author hears of each broken promise');
  });

  test('an argument JSON.parse read as Infinity (1e400) is -32602 naming its path; the handler does not run', async () => {
    const server = newServer();
    let ran = false;
    server.tool({ name: 'add' }, () => {
      ran = true;
      return { content: [] };
    });
    const client = await connected(server);
    const from = client.sent.length;
    // As the parser hands it over: FakeClient.call would round-trip it through JSON, turning it into null.
    client.connection.receiver!.message(
      JSON.parse(
        '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"add","arguments":{"a":1e400,"b":[1,-1e999]}}}',
      ),
    );
    const response = await client.connection.next((s) => s.message.id === 'big', from);
    assert.equal(response.message.error.code, ErrorCode.InvalidParams);
    assert.match(
      response.message.error.message,
      /^Invalid params: params\.arguments\.a is Infinity, not a finite number/,
    );
    assert.equal(ran, false);
  });

  test('structuredContent JSON cannot carry is a tool error naming the field, with or without an outputSchema', async () => {
    const server = newServer();
    const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    server.tool({ name: 'sum', outputSchema }, () => ({ structuredContent: { sum: 1e308 + 1e308 } }));
    server.tool({ name: 'loose' }, () => ({ content: [], structuredContent: { list: [1, Number.NaN] } }));
    server.tool({ name: 'holes' }, async () => ({ structuredContent: { list: holed() } }));
    server.tool({ name: 'big' }, () => ({ structuredContent: { n: 10n } as never }));
    server.tool({ name: 'fn', outputSchema: { type: 'object' } }, () => ({
      structuredContent: { f: () => 1 },
    }));
    const client = await connected(server);
    const expected: Array<[string, RegExp]> = [
      [
        'sum',
        /^Tool "sum" returned structuredContent that JSON cannot carry: structuredContent\.sum is Infinity, not a finite number/,
      ],
      ['loose', /structuredContent\.list\[1\] is NaN/],
      ['holes', /structuredContent\.list\[1\] is undefined/],
      ['big', /structuredContent\.n is a BigInt \(10n\)/],
      ['fn', /structuredContent\.f is a function/],
    ];
    for (const [name, message] of expected) {
      const result = await client.result('tools/call', { name });
      assert.equal(result.isError, true, name);
      assert.equal(result.structuredContent, undefined, name);
      assert.match(result.content[0].text, message);
    }
  });

  test('property: whatever structuredContent a tool returns, what reaches the wire conforms to its outputSchema', async () => {
    const hostile = fc.oneof(
      fc.anything({ withBigInt: true, withSparseArray: true, withNullPrototype: true }),
      fc.constantFrom(Number.NaN, Infinity, -Infinity, undefined, [undefined], () => 0),
    );
    const content = fc.dictionary(fc.string({ maxLength: 6 }), hostile, { maxKeys: 4 });
    const ajv = new Ajv({ strict: false });
    await fc.assert(
      fc.asyncProperty(content, async (structuredContent) => {
        // Every key required, with the type its value had when the tool returned it.
        const properties: Record<string, unknown> = {};
        for (const key of Object.keys(structuredContent))
          properties[key] = { type: jsonType(structuredContent[key]) };
        const outputSchema = { type: 'object', properties, required: Object.keys(structuredContent) };
        const server = newServer({ onerror: () => {} });
        server.tool({ name: 't', outputSchema }, () => ({ structuredContent }));
        const client = await connected(server);
        const response = await client.call('tools/call', { name: 't' });
        if (response.error !== undefined) {
          assert.equal(response.error.code, ErrorCode.InternalError);
          return;
        }
        if (response.result.isError === true) return;
        // RecordingConnection keeps what a wire would carry.
        assert.ok(ajv.validate(outputSchema, response.result.structuredContent), ajv.errorsText());
      }),
      fuzzRuns(150),
    );
  });

  test('a zod input schema is published as JSON Schema and its parsed output reaches a typed handler', async () => {
    const server = newServer();
    server.tool(
      { name: 'greet', inputSchema: z.object({ name: z.string(), times: z.number().int().default(1) }) },
      (args) => {
        // Typed from the schema: a compile error here would mean inference broke.
        const text: string = args.name.repeat(args.times);
        return { content: [{ type: 'text', text }] };
      },
    );
    const client = await connected(server);
    const listed = await client.result('tools/list');
    assert.equal(listed.tools[0].inputSchema.type, 'object');
    assert.deepEqual(listed.tools[0].inputSchema.required, ['name']);
    assert.deepEqual(await client.result('tools/call', { name: 'greet', arguments: { name: 'ab' } }), {
      content: [{ type: 'text', text: 'ab' }],
    });
    const bad = await client.result('tools/call', { name: 'greet', arguments: { name: 3 } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /arguments\.name/);
  });
});

describe('tool handles', () => {
  test('changes in one tick reach each initialized session as one list_changed', async () => {
    const server = newServer();
    const t = server.tool({ name: 'a' }, () => ({ content: [] }));
    const one = await connected(server);
    const two = await connected(server);
    const uninitialized = new FakeClient(server);
    t.disable();
    t.enable();
    server.tool({ name: 'b' }, () => ({ content: [] }));
    t.update({ description: 'now described' });
    await settle();
    assert.equal(one.notifications('notifications/tools/list_changed').length, 1);
    assert.equal(two.notifications('notifications/tools/list_changed').length, 1);
    assert.equal(uninitialized.sent.length, 0);
    t.remove();
    await settle();
    assert.equal(one.notifications('notifications/tools/list_changed').length, 2);
    assert.equal(one.notifications().length, 2, 'no other notification');
  });

  test('disable hides, enable restores, remove frees the name, update renames and replaces the handler', async () => {
    const server = newServer();
    const t = server.tool({ name: 'a' }, () => ({ content: [{ type: 'text', text: 'v1' }] }));
    const client = await connected(server);
    const names = async () => (await client.result('tools/list')).tools.map((x: { name: string }) => x.name);

    t.disable();
    assert.equal(t.enabled, false);
    assert.deepEqual(await names(), []);
    t.enable();
    assert.deepEqual(await names(), ['a']);

    t.update({ name: 'b', handler: () => ({ content: [{ type: 'text', text: 'v2' }] }) });
    assert.deepEqual(await names(), ['b']);
    assert.deepEqual((await client.result('tools/call', { name: 'b' })).content, [
      { type: 'text', text: 'v2' },
    ]);
    assert.equal((await client.call('tools/call', { name: 'a' })).error.code, ErrorCode.InvalidParams);

    server.tool({ name: 'c' }, () => ({ content: [] }));
    assert.throws(() => t.update({ name: 'c' }), /already registered/);
    assert.deepEqual(await names(), ['b', 'c'], 'a failed update changes nothing');

    t.remove();
    assert.equal(t.enabled, false);
    assert.throws(() => t.update({ description: 'x' }), /removed/);
    server.tool({ name: 'b' }, () => ({ content: [] }));
  });
});
