// The bridge (`mcpwire serve -- CMD`'s library side) serving @modelcontextprotocol/server-everything, the official
// reference server, spawned over stdio: its tools, resources, prompts and completion reached through the bridge by
// mcpwire's client in both eras and by the official SDK v1 client; its progress, sampling and elicitation relayed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, connectUrl } from '../../src/client/index.js';
import type { Bridge } from '../../src/host/bridge-server.js';
import type { Progress } from '../../src/peer/peer-options.js';
import { everythingClientOptions } from '../../src/test-support/everything-client-options.js';
import { serveBridge } from '../../src/test-support/served-bridge.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;

describe('bridge ↔ server-everything (stdio child)', () => {
  let bridge: Bridge;
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ bridge, url, close } = await serveBridge({
      upstream: { command: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      stderr: () => {},
      report: () => {},
    }));
  });

  after(() => close?.());

  test("the child's identity and capabilities are the server's; tasks are not announced", () => {
    assert.equal(bridge.server.info.name, 'mcp-servers/everything');
    const caps = bridge.server.capabilities;
    assert.ok(caps.tools);
    assert.ok(caps.resources);
    assert.ok(caps.prompts);
    assert.equal(caps.tasks, undefined);
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} client: tools, a call, a resource, a prompt, completion — the child's answers`, async () => {
      const { options } = everythingClientOptions('unused');
      const session = await within(
        connectUrl(new Client({ name: 'c', version: '1' }, { ...options, era }), url),
        MS,
        'connect',
      );
      try {
        assert.equal(session.era, era);
        const names = [];
        for await (const tool of session.tools()) names.push(tool.name);
        assert.ok(names.includes('echo') && names.includes('get-sum'), names.join(', '));
        const echo = await session.callTool('echo', { message: `through the bridge, ${era}` });
        assert.equal(toolText(echo), `Echo: through the bridge, ${era}`);
        const sum = await session.callTool('get-sum', { a: 2, b: 40 });
        assert.match(toolText(sum), /42/);
        const resource = await session.readResource('demo://resource/static/document/architecture.md');
        assert.equal(resource.contents[0]?.uri, 'demo://resource/static/document/architecture.md');
        const prompt = await session.getPrompt('simple-prompt');
        assert.ok(prompt.messages.length > 0);
        const completion = await session.complete(
          { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
          { name: 'resourceId', value: '1' },
        );
        assert.ok(Array.isArray(completion.completion.values));
      } finally {
        await session.close();
      }
    });

    test(`${era} client: the child's progress reaches the client under its own token, before the result`, async () => {
      const { options } = everythingClientOptions('unused');
      const session = await within(
        connectUrl(new Client({ name: 'c', version: '1' }, { ...options, era }), url),
        MS,
        'connect',
      );
      try {
        const events: Array<Progress | 'result'> = [];
        const result = await session.callTool(
          'trigger-long-running-operation',
          { duration: 0.2, steps: 4 },
          { onprogress: (progress) => events.push(progress) },
        );
        events.push('result');
        assert.deepEqual(
          events.map((e) => (e === 'result' ? e : `${e.progress}/${e.total}`)),
          ['1/4', '2/4', '3/4', '4/4', 'result'],
        );
        assert.match(toolText(result), /Long running operation completed/);
      } finally {
        await session.close();
      }
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} client answers the child's sampling request made during its call (${era === 'modern' ? 'an input round' : 'a server request'})`, async () => {
      const { options, samplingRequests } = everythingClientOptions('Sampled through the bridge');
      const session = await within(
        connectUrl(new Client({ name: 'c', version: '1' }, { ...options, era }), url),
        MS,
        'connect',
      );
      try {
        const result = await session.callTool('trigger-sampling-request', {
          prompt: 'What is 6 x 7?',
          maxTokens: 50,
        });
        assert.equal(samplingRequests.length, 1);
        assert.match(JSON.stringify(samplingRequests[0]), /What is 6 x 7\?/);
        assert.match(toolText(result), /Sampled through the bridge/);
      } finally {
        await session.close();
      }
    });
  }

  test("the official client 2.4.0 pinned to 2026-07-28: the child's elicitation and sampling as input rounds", async () => {
    const client = new ClientV2(
      { name: 'v2', version: '2.4.0' },
      {
        capabilities: { sampling: {}, elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push('elicitation');
      assert.equal(
        (request.params as { message: string }).message,
        'Please provide inputs for the following fields:',
      );
      return { action: 'accept', content: { name: 'Grace', check: true, email: 'grace@example.com' } };
    });
    client.setRequestHandler('sampling/createMessage', () => {
      asked.push('sampling');
      return {
        role: 'assistant',
        content: { type: 'text', text: 'forty-two' },
        model: 'm',
        stopReason: 'endTurn',
      };
    });
    await within(client.connect(new TransportV2(new URL(url))), MS, 'v2 connect');
    try {
      const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.match(JSON.stringify(elicited.content), /Grace/);
      const sampled = await client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'x', maxTokens: 5 },
      });
      assert.match(JSON.stringify(sampled.content), /forty-two/);
      assert.deepEqual(asked, ['elicitation', 'sampling']);
    } finally {
      await client.close();
    }
  });

  test('the official SDK v1 client: calls through the bridge, and answers its elicitation', async () => {
    const sdk = new SdkClient({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    sdk.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com' } };
    });
    await within(sdk.connect(new StreamableHTTPClientTransport(new URL(url))), MS, 'sdk connect');
    try {
      const echo = await sdk.callTool({ name: 'echo', arguments: { message: 'from the SDK' } });
      assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: from the SDK' }]);
      const elicited = await sdk.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.equal(asked.length, 1);
      assert.match(JSON.stringify(elicited.content), /Ada/);
    } finally {
      await sdk.close();
    }
  });

  test('two clients using the same request ids each get their own answers', async () => {
    const { options } = everythingClientOptions('unused');
    const [a, b] = await Promise.all(
      ['a', 'b'].map((name) =>
        connectUrl(new Client({ name, version: '1' }, { ...options, era: 'legacy' }), url),
      ),
    );
    try {
      // Both sessions number their requests alike; in the child they are the bridge's own, distinct ids.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a! : b!).callTool('echo', { message: `m${i}` })),
      );
      assert.deepEqual(
        answers.map((r) => toolText(r)),
        Array.from({ length: 10 }, (_, i) => `Echo: m${i}`),
      );
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });
});
