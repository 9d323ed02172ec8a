import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createDemoServer } from '../../src/demo/demo-server.js';
import type { StreamableHTTPOptions } from '../../src/server/http/handler-options.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { type Served, serveOn } from '../../src/test-support/mcp-http.js';

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('');
}

for (const mode of ['sse', 'json'] as const) {
  describe(`interop: the official SDK client against the demo server (${mode} responses)`, () => {
    let served: Served;
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    const logs: unknown[] = [];
    const options: StreamableHTTPOptions = { jsonResponse: mode === 'json' };

    before(async () => {
      served = await serveOn(new StreamableHTTPHandler(createDemoServer(), options).node());
      client = new Client(
        { name: 'sdk-client', version: '1.0.0' },
        { capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: { form: {} } } },
      );
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: 'assistant',
        content: {
          type: 'text',
          text: `model says: ${(request.params.messages[0].content as { text: string }).text}`,
        },
        model: 'test-model',
      }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: 'file:///work', name: 'work' }],
      }));
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: 'accept',
        content: { name: 'Ada' },
      }));
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params.data);
      });
      transport = new StreamableHTTPClientTransport(new URL(served.url));
      await client.connect(transport);
      // JSON-response mode needs the client's GET stream for server-to-client messages: wait for it.
      await new Promise((r) => setTimeout(r, 50));
    });
    after(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
      await served.close();
    });

    test('initialize, tools, resources, prompts and completion', async () => {
      assert.equal(client.getServerVersion()?.name, 'mcpwire-demo');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'echo'));
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })), 'Echo: hi');
      const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.deepEqual(add.structuredContent, { sum: 5 });
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === 'demo://readme'));
      const read = await client.readResource({ uri: 'demo://items/42' });
      assert.match((read.contents[0] as { text: string }).text, /demo item 42/);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.equal(resourceTemplates[0].uriTemplate, 'demo://items/{id}');
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Grace' } });
      assert.match((prompt.messages[0].content as { text: string }).text, /Grace/);
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: 'Gr' },
      });
      assert.deepEqual(completion.completion.values, ['Grace']);
    });

    test('logging and progress', async () => {
      await client.setLoggingLevel('info');
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'long_running', arguments: { duration: 0.05, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.match(textOf(result), /completed: 3 steps/);
      // In JSON mode progress travels on the GET stream and the answer on the POST: the answer waits
      // until the progress has left, so the SDK still listens when the last notification arrives.
      assert.deepEqual(progress, [1, 2, 3]);
      await new Promise((r) => setTimeout(r, 20));
      assert.ok(logs.some((l) => String(l).includes('long_running finished')));
    });

    test('the sampling, roots and elicitation round trips', async () => {
      assert.equal(
        textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'ping' } })),
        'model says: ping',
      );
      assert.equal(textOf(await client.callTool({ name: 'list_roots', arguments: {} })), 'file:///work');
      assert.equal(textOf(await client.callTool({ name: 'elicit_name', arguments: {} })), 'Hello, Ada');
    });
  });
}
