import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import { within } from '../test-support/time-limit.js';
import { toolText } from '../test-support/tool-text.js';
import { Server } from './server.js';
import { ModernStdio } from './stdio/stdio-modern.js';

/*
 * A handler that asks the client with params the client would refuse gets -32602 naming the field, where it asked,
 * in both eras, and nothing is sent: before, a 2025 client answered -32602 and a 2026 client failed the whole call.
 */

function asking() {
  const server = new Server({ name: 'asks', version: '1' });
  server.tool({ name: 'ask', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    try {
      // A message is what every elicitation must carry.
      await ctx.elicit({ requestedSchema: { type: 'object', properties: {} } } as never);
      return { content: [{ type: 'text', text: 'asked' }] };
    } catch (err) {
      const code = err instanceof McpError ? err.code : 'none';
      return { content: [{ type: 'text', text: `${code} ${(err as Error).message}` }] };
    }
  });
  return server;
}

const elicited: unknown[] = [];
const client = (era: 'legacy' | 'modern') =>
  new Client(
    { name: 'c', version: '1' },
    {
      era,
      elicitation: {
        form: (params) => {
          elicited.push(params);
          return { action: 'decline' };
        },
      },
    },
  );
const REFUSED = '-32602 elicitation/create was not sent to the client: params.message must be a string';

test('2025: the elicitation is not sent; the handler gets -32602 naming the field', async () => {
  const server = asking();
  const [serverEnd, clientEnd] = createMemoryPair();
  server.connect(serverEnd);
  const session = await within(client('legacy').connect(clientEnd), 10_000, 'connect');
  try {
    assert.equal(toolText(await within(session.callTool('ask'), 10_000, 'call')), REFUSED);
    assert.deepEqual(elicited, []);
  } finally {
    await session.close();
  }
});

test('2026: the same, where a client would have failed the whole call', async () => {
  const server = asking();
  const [serverEnd, clientEnd] = createMemoryPair();
  serverEnd.start(new ModernStdio(server, serverEnd, () => {}));
  const session = await within(client('modern').connect(clientEnd), 10_000, 'connect');
  try {
    assert.equal(session.era, 'modern');
    assert.equal(toolText(await within(session.callTool('ask'), 10_000, 'call')), REFUSED);
    assert.deepEqual(elicited, []);
  } finally {
    await session.close();
    await server.close();
  }
});
