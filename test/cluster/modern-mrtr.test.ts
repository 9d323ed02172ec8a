// The official TS client 2.4.0, pinned to 2026-07-28, walks the whole demo through a round-robin proxy (no
// affinity) over two `mcpwire serve --redis` processes: the rounds of each multi-round-trip call land on
// different processes, which works only because every process seals requestState with the cluster's key
// (kept in Redis; no MCPWIRE_REQUEST_STATE_SECRET is set). Needs `npm run build` and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CreateMessageRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { WALK_NAME, WALK_ROOT, walkDemo } from '../../src/test-support/demo-walkthrough.js';
import type { PostedMessage } from '../../src/test-support/posted-messages.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import {
  BACKEND_HEADER,
  type RoundRobinProxy,
  startRoundRobinProxy,
} from '../../src/test-support/round-robin-proxy.js';
import { shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MODERN = '2026-07-28';
const CALLBACK_TOOLS = ['sample', 'list_roots', 'elicit_name'];

let redis: RedisBackend;
let cluster: ProcessCluster;
let proxy: RoundRobinProxy;

before(async () => {
  redis = await startRedisBackend();
  // Not inherited: each process must take the cluster's key from Redis.
  delete process.env.MCPWIRE_REQUEST_STATE_SECRET;
  cluster = await startProcessCluster(2, { redis: redis.address });
  proxy = await startRoundRobinProxy(cluster.urls());
});

after(async () => {
  await proxy?.close();
  await cluster?.stopAll();
  await redis?.stop();
});

/** One request the client POSTed, and the process that answered it (the proxy's header). */
interface Served {
  readonly message: PostedMessage;
  readonly backend: string | null;
}

/** A fetch that records every POSTed request with the backend the proxy sent it to. */
function servedFetch(log: Served[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const body = JSON.parse(init.body) as PostedMessage | PostedMessage[];
      for (const message of Array.isArray(body) ? body : [body]) {
        log.push({ message, backend: res.headers.get(BACKEND_HEADER) });
      }
    }
    return res;
  };
}

test('client 2.4.0 pinned to 2026-07-28: the whole demo, each MRTR call served by both processes', {
  timeout: 60_000,
}, async () => {
  const log: Served[] = [];
  const client = new Client(
    { name: 'cluster-v2', version: '2.4.0' },
    {
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  client.setRequestHandler('roots/list', () => ({ roots: [WALK_ROOT] }));
  client.setRequestHandler('sampling/createMessage', (request) =>
    shoutingModel(request.params as CreateMessageRequestParams),
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept' as const,
    content: { name: WALK_NAME },
  }));
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
    fetch: servedFetch(log),
  });
  try {
    await client.connect(transport);
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    await walkDemo({
      callTool: (name, args, onprogress) =>
        client.callTool(
          { name, arguments: args },
          onprogress === undefined ? undefined : { onprogress: (p) => onprogress(p.progress) },
        ),
      toolNames: async () =>
        (await client.listTools(undefined, { cacheMode: 'refresh' })).tools.map((t) => t.name),
      resourceUris: async () => (await client.listResources()).resources.map((r) => r.uri),
      templateUris: async () =>
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
      readText: async (uri) => {
        const first = (await client.readResource({ uri })).contents[0];
        return first !== undefined && 'text' in first ? String(first.text) : '[no text]';
      },
      promptNames: async () => (await client.listPrompts()).prompts.map((p) => p.name),
      promptText: async (name, args) => {
        const content = (await client.getPrompt({ name, arguments: args })).messages[0]?.content;
        return content?.type === 'text' ? content.text : `[${content?.type}]`;
      },
      completeGreetName: async (value) =>
        (
          await client.complete({
            ref: { type: 'ref/prompt', name: 'greet' },
            argument: { name: 'name', value },
          })
        ).completion.values,
    });
    assert.ok(!log.some((s) => s.message.method === 'initialize'), 'the client opened a legacy session');
    assert.equal(new Set(log.map((s) => s.backend)).size, 2, 'the proxy used both processes');
    for (const name of CALLBACK_TOOLS) {
      const rounds = log.filter((s) => s.message.method === 'tools/call' && s.message.params?.name === name);
      assert.ok(rounds.length >= 2, `${name}: ${rounds.length} round(s), not a multi-round-trip call`);
      assert.equal(rounds[0].message.params?.inputResponses, undefined, `${name}: the first round`);
      assert.ok(rounds.at(-1)!.message.params?.inputResponses, `${name}: the last round carried no answers`);
      assert.ok(rounds.at(-1)!.message.params?.requestState, `${name}: the retry carried no requestState`);
      const backends = new Set(rounds.map((s) => s.backend));
      assert.equal(backends.size, 2, `${name}: every round served by ${[...backends]}`);
    }
    // Once more, with a round's outcome checked: answered across processes, not refused.
    assert.equal(
      toolText(await client.callTool({ name: 'sample', arguments: { prompt: 'again' } })),
      'The model says: AGAIN',
    );
  } finally {
    await client.close();
  }
});
