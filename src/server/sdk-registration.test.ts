import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Client } from '../client/client.js';
import { createMemoryPair } from '../peer/memory.js';
import type { ServerContext } from './context.js';
import type { StandardSchemaV1 } from './schema.js';
import { Server } from './server.js';

async function connected(server: Server) {
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  return new Client({ name: 't', version: '1' }).connect(clientEnd);
}

/** A Standard Schema that settles later: a string of at least 3 characters. */
const slowName: StandardSchemaV1 = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) =>
      typeof value === 'string' && value.length >= 3
        ? { value: value.toUpperCase() }
        : { issues: [{ message: 'too short' }] },
    jsonSchema: { input: () => ({ type: 'string', minLength: 3 }), output: () => ({ type: 'string' }) },
  },
};

describe('registerTool and registerResource with the official SDK signatures', () => {
  test("a raw shape's fields are checked by their own schemas (sync or async), its output handed on", async () => {
    const server = new Server({ name: 's', version: '1' });
    server.registerTool(
      'greet',
      { inputSchema: { name: slowName, times: z.number().optional() } },
      (args, _ctx) => ({
        content: [{ type: 'text', text: JSON.stringify(args) }],
      }),
    );
    server.registerTool('bare', {}, (ctx: ServerContext) => ({
      content: [{ type: 'text' as const, text: ctx.method }],
    }));
    const session = await connected(server);
    const [greet] = (await session.listTools()).tools;
    assert.deepEqual(greet?.inputSchema, {
      type: 'object',
      properties: { name: { type: 'string', minLength: 3 }, times: { type: 'number' } },
      required: ['name'],
    });
    const text = async (name: string, args: Record<string, unknown>) =>
      (await session.callTool(name, args)) as { content: Array<{ text: string }>; isError?: boolean };
    assert.equal(
      (await text('greet', { name: 'ada', extra: 1 })).content[0]?.text,
      '{"name":"ADA","extra":1}',
    );
    const refused = await text('greet', { name: 'al', times: 'x' });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]?.text ?? '', /name.*too short/s);
    assert.match(refused.content[0]?.text ?? '', /times/);
    assert.equal((await text('bare', {})).content[0]?.text, 'tools/call');
    await session.close();
  });

  test('a resource read gets its URI as a URL', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.registerResource('Note', 'note://a', { mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, text: uri.protocol }],
    }));
    const session = await connected(server);
    assert.deepEqual((await session.readResource('note://a')).contents, [{ uri: 'note://a', text: 'note:' }]);
    await session.close();
  });

  test('refusals say what is taken', () => {
    const server = new Server({ name: 's', version: '1' });
    assert.throws(
      () => server.registerTool('t', { inputSchema: { city: 'string' } as never }, () => ({ content: [] })),
      /t's inputSchema is a Standard Schema \(z\.object\(\{…\}\)\) or a record of them/,
    );
    assert.throws(
      () => server.registerResource('T', { uriTemplate: 'x://{id}' } as never, {}, () => ({ contents: [] })),
      /registerResource\("T"\) takes the resource's URI; register a template with server\.resourceTemplate/,
    );
  });
});
