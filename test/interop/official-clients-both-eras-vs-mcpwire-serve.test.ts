// Three official clients at once against one `mcpwire serve` process, on its one endpoint: the TS SDK v2
// client (2.4.0) in the modern era (auto-negotiated, then pinned to 2026-07-28), and beside it, with
// legacy sessions, the SDK 1.32.2 client and the 2.4.0 client in its default legacy mode. Each walks the whole
// demo; the era is asserted from what the client reports and from what it POSTed.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CreateMessageRequestParams,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { type DemoPeer, WALK_NAME, WALK_ROOT, walkDemo } from '../../src/test-support/demo-walkthrough.js';
import { type PostedMessage, postTap } from '../../src/test-support/posted-messages.js';
import { shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MODERN = '2026-07-28';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } };
const ELICITED = { action: 'accept' as const, content: { name: WALK_NAME } };
const CALLBACK_TOOLS = ['sample', 'list_roots', 'elicit_name'];

/** What both official clients offer for the walk, as their methods are named and shaped alike. */
interface OfficialClient {
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: ReadonlyArray<{ uri: string }> }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: {
    name: string;
    arguments?: Record<string, string>;
  }): Promise<{ messages: { content: unknown }[] }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

type CallTool = (
  name: string,
  args: Record<string, unknown> | undefined,
  options: { onprogress: (p: { progress: number }) => void } | undefined,
) => Promise<unknown>;

/** The walk's view of an official client; only calling a tool and listing tools differ between them. */
function demoPeer(client: OfficialClient, callTool: CallTool, toolNames: () => Promise<string[]>): DemoPeer {
  return {
    callTool: (name, args, onprogress) =>
      callTool(
        name,
        args,
        onprogress === undefined ? undefined : { onprogress: (p) => onprogress(p.progress) },
      ),
    toolNames,
    resourceUris: async () => (await client.listResources()).resources.map((r) => r.uri),
    templateUris: async () =>
      (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
    readText: async (uri) => firstText((await client.readResource({ uri })).contents),
    promptNames: async () => (await client.listPrompts()).prompts.map((p) => p.name),
    promptText: async (name, args) => textOf((await client.getPrompt({ name, arguments: args })).messages[0]),
    completeGreetName: async (value) =>
      (
        await client.complete({
          ref: { type: 'ref/prompt', name: 'greet' },
          argument: { name: 'name', value },
        })
      ).completion.values,
  };
}

/** A 2.4.0 client, its handlers for the three calls back registered, its POSTs tapped. */
function clientV2(url: string, mode: VersionNegotiationMode | undefined) {
  const tap = postTap();
  const client = new ClientV2(
    { name: 'interop-v2', version: '2.4.0' },
    { capabilities: CAPABILITIES, versionNegotiation: mode === undefined ? undefined : { mode } },
  );
  client.setRequestHandler('roots/list', () => ({ roots: [WALK_ROOT] }));
  client.setRequestHandler('sampling/createMessage', (request) =>
    shoutingModel(request.params as CreateMessageRequestParams),
  );
  client.setRequestHandler('elicitation/create', () => ELICITED);
  const transport = new TransportV2(new URL(url), { fetch: tap.fetch });
  const peer = demoPeer(
    client,
    (name, args, options) => client.callTool({ name, arguments: args }, options),
    // Fresh from the server each time: another client may have changed the list since.
    async () => (await client.listTools(undefined, { cacheMode: 'refresh' })).tools.map((t) => t.name),
  );
  return { client, transport, peer, posted: tap.posted };
}

/** The SDK 1.32.2 client, likewise. */
function clientV1(url: string) {
  const tap = postTap();
  const client = new ClientV1({ name: 'interop-v1', version: '1.32.2' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [WALK_ROOT] }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => shoutingModel(request.params));
  client.setRequestHandler(ElicitRequestSchema, () => ELICITED);
  const transport = new TransportV1(new URL(url), { fetch: tap.fetch });
  const peer = demoPeer(
    client,
    (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
    async () => (await client.listTools()).tools.map((t) => t.name),
  );
  return { client, transport, peer, posted: tap.posted };
}

function firstText(contents: ReadonlyArray<{ uri: string }>): string {
  const first = contents[0];
  return first !== undefined && 'text' in first ? String(first.text) : '[no text]';
}

function textOf(message: { content: unknown } | undefined): string {
  const content = message?.content as { type: string; text?: string } | undefined;
  return content?.type === 'text' ? String(content.text) : `[${content?.type}]`;
}

const requests = (posted: PostedMessage[]) =>
  posted.filter((m) => m.method !== undefined && m.id !== undefined);
const answers = (posted: PostedMessage[]) =>
  posted.filter((m) => m.method === undefined && m.id !== undefined);

/**
 * A legacy session's wire: `initialize` first, no modern envelope, and the three calls back answered as
 * server→client requests (the client POSTed their responses), never as input_required rounds.
 */
function assertLegacyWire(posted: PostedMessage[]): void {
  assert.equal(posted[0]?.method, 'initialize');
  for (const request of requests(posted)) {
    assert.equal(
      request.params?._meta?.[VERSION_KEY],
      undefined,
      `${request.method} carried a modern envelope`,
    );
    assert.equal(request.params?.inputResponses, undefined, `${request.method} carried inputResponses`);
  }
  assert.ok(answers(posted).length >= CALLBACK_TOOLS.length, 'the client answered no server→client request');
}

describe('official clients of both eras, at once, against one mcpwire serve', { concurrency: true }, () => {
  let serve: CliRun;
  let url: string;

  before(async () => {
    ({ run: serve, url } = await serveDemo(['--no-legacy-sse']));
  });

  after(async () => {
    serve?.child.kill('SIGINT');
    await serve?.exit(10_000).catch(() => {});
    killCliRuns();
  });

  test('client 2.4.0 in the modern era, auto-negotiated then pinned: the whole demo, MRTR, listen', {
    timeout: 60_000,
  }, async (t) => {
    await t.test('versionNegotiation auto', (t) => modernWalk(t, url, 'auto'));
    await t.test(`versionNegotiation pinned to ${MODERN}`, (t) => modernWalk(t, url, { pin: MODERN }));
  });

  test('SDK 1.32.2 client with a legacy session: the whole demo, calls back as server→client requests', {
    timeout: 30_000,
  }, async () => {
    const { client, transport, peer, posted } = clientV1(url);
    try {
      await client.connect(transport);
      assert.ok(transport.sessionId, 'the server gave a session id');
      assert.equal(transport.protocolVersion, '2025-11-25');
      await walkDemo(peer);
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri);
      });
      await client.subscribeResource({ uri: 'demo://readme' });
      await peer.callTool('touch_readme');
      await until(() => updated.includes('demo://readme'), 5000, 'resources/updated for demo://readme');
      assertLegacyWire(posted);
    } finally {
      await client.close();
    }
  });

  test('client 2.4.0 in its default legacy mode, with a session: the whole demo', {
    timeout: 30_000,
  }, async () => {
    const { client, transport, peer, posted } = clientV2(url, undefined);
    try {
      await client.connect(transport);
      assert.equal(client.getProtocolEra(), 'legacy');
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(client.getDiscoverResult(), undefined);
      assert.ok(transport.sessionId, 'the server gave a session id');
      await walkDemo(peer);
      assertLegacyWire(posted);
    } finally {
      await client.close();
    }
  });
});

/**
 * One modern client's walk, in steps that fail apart: negotiation, the demo, the wire's shape (envelope on
 * every request; the calls back fulfilled as input_required rounds), then a listen stream.
 */
async function modernWalk(t: TestContext, url: string, mode: VersionNegotiationMode): Promise<void> {
  const { client, transport, peer, posted } = clientV2(url, mode);
  const connected = client.connect(transport);
  // Each later step awaits it, so a failed connect fails each with its reason instead of hanging them.
  connected.catch(() => {});
  try {
    await t.test('negotiates 2026-07-28 through server/discover, without a session', async () => {
      await connected;
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      const discovered = client.getDiscoverResult();
      assert.ok(discovered !== undefined, 'no server/discover result');
      assert.ok(discovered.supportedVersions.includes(MODERN), JSON.stringify(discovered));
      assert.ok(discovered.capabilities.tools, 'discover announces tools');
      assert.equal(posted[0]?.method, 'server/discover');
      assert.equal(transport.sessionId, undefined);
    });

    await t.test('walks the whole demo', async () => {
      await connected;
      await walkDemo(peer);
    });

    await t.test(
      'every request carried the modern envelope; sampling, roots, elicitation came as rounds',
      async () => {
        await connected;
        assert.ok(!posted.some((m) => m.method === 'initialize'), 'the client sent initialize');
        for (const request of requests(posted)) {
          assert.equal(request.params?._meta?.[VERSION_KEY], MODERN, `${request.method} lacks the envelope`);
        }
        assert.deepEqual(answers(posted), [], 'the server sent requests to the client');
        for (const name of CALLBACK_TOOLS) {
          const retried = requests(posted).some(
            (m) =>
              m.method === 'tools/call' && m.params?.name === name && m.params.inputResponses !== undefined,
          );
          assert.ok(retried, `no tools/call of ${name} retried with inputResponses`);
        }
      },
    );

    await t.test(
      'listen: a tools list change and an update of demo://readme arrive on the stream',
      async () => {
        await connected;
        await listenWalk(client, peer);
      },
    );
  } finally {
    await client.close();
  }
}

/** Opens a listen stream, toggles `bonus` twice and touches the readme, and sees each on the stream. */
async function listenWalk(client: ClientV2, peer: DemoPeer): Promise<void> {
  let listChanges = 0;
  const updated: string[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    listChanges++;
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updated.push(n.params.uri);
  });
  const filter = { toolsListChanged: true, resourceSubscriptions: ['demo://readme'] };
  const subscription = await client.listen(filter);
  try {
    assert.deepEqual(subscription.honoredFilter, filter);
    // Only this walk toggles, but the auto walk may have stopped half-way: read the state, not assume it.
    for (let round = 1; round <= 2; round++) {
      const had = (await peer.toolNames()).includes('bonus');
      const toggled = toolText(await peer.callTool('toggle_tool'));
      assert.equal(toggled, had ? 'Removed the tool bonus' : 'Added the tool bonus');
      await until(() => listChanges >= round, 5000, `tools list_changed number ${round} on the stream`);
      assert.equal((await peer.toolNames()).includes('bonus'), !had);
    }
    await peer.callTool('touch_readme');
    await until(() => updated.includes('demo://readme'), 5000, 'resources/updated for demo://readme');
  } finally {
    await subscription.close();
  }
  assert.equal(await subscription.closed, 'local');
}
