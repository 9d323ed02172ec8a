// mcpwire's own Client against one `mcpwire serve` process, in each era the client can negotiate: `auto`
// (which must find the modern era), pinned modern, and legacy. Each walks the whole demo through the same
// ClientSession API; the era is asserted from the session and from what the client POSTed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type EraPreference } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import type { CreateMessageRequestParams } from '../../src/protocol/types.js';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { type DemoPeer, WALK_NAME, WALK_ROOT, walkDemo } from '../../src/test-support/demo-walkthrough.js';
import { postTap } from '../../src/test-support/posted-messages.js';
import { until } from '../../src/test-support/time-limit.js';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

function shout(params: CreateMessageRequestParams) {
  const first = params.messages[0]?.content as { type: string; text?: string };
  return {
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `The model says: ${(first.text ?? '?').toUpperCase()}` },
    model: 'shouting',
  };
}

function client(era: EraPreference): Client {
  return new Client(
    { name: 'mcpwire-both-eras', version: '1.0.0' },
    {
      era,
      requestTimeoutMs: 20_000,
      roots: [WALK_ROOT],
      sampling: shout,
      elicitation: { form: () => ({ action: 'accept', content: { name: WALK_NAME } }) },
    },
  );
}

function peer(session: ClientSession): DemoPeer {
  return {
    callTool: (name, args, onprogress) =>
      session.callTool(
        name,
        args as never,
        onprogress === undefined ? undefined : { onprogress: (p) => onprogress(p.progress) },
      ),
    toolNames: async () => (await session.listTools()).tools.map((t) => t.name),
    resourceUris: async () => (await session.listResources()).resources.map((r) => r.uri),
    templateUris: async () =>
      (await session.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
    readText: async (uri) => {
      const content = (await session.readResource(uri)).contents[0] as { text?: string };
      return content.text ?? '';
    },
    promptNames: async () => (await session.listPrompts()).prompts.map((p) => p.name),
    promptText: async (name, args) => {
      const content = (await session.getPrompt(name, args)).messages[0].content as { text?: string };
      return content.text ?? '';
    },
    completeGreetName: async (value) =>
      (await session.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value })).completion
        .values,
  };
}

describe('mcpwire Client against mcpwire serve, in each era', { timeout: 120_000 }, () => {
  let run: CliRun;
  let url: string;

  before(async () => {
    ({ run, url } = await serveDemo());
  });

  after(async () => {
    run?.child.kill('SIGINT');
    await run?.exit(10_000).catch(() => {});
    killCliRuns();
  });

  for (const [era, expected] of [
    ['auto', 'modern'],
    ['modern', 'modern'],
    ['legacy', 'legacy'],
  ] as const) {
    test(`era '${era}' speaks the ${expected} era and walks the whole demo`, async () => {
      const tap = postTap();
      const session = await connectUrl(client(era), url, { fetch: tap.fetch });
      try {
        assert.equal(session.era, expected);
        assert.equal(session.serverInfo.name, 'mcpwire-demo');
        await walkDemo(peer(session));
        const requests = tap.posted.filter((m) => m.method !== undefined && m.id !== undefined);
        if (expected === 'modern') {
          assert.equal(session.protocolVersion, '2026-07-28');
          assert.ok(!requests.some((m) => m.method === 'initialize'), 'a modern session never initializes');
          for (const m of requests)
            assert.equal(m.params?._meta?.[VERSION_KEY], '2026-07-28', `${m.method} lacks the envelope`);
          // The three calls back to the client took an input_required round each: retried under a new id.
          const rounds = requests.filter(
            (m) => m.method === 'tools/call' && m.params?.inputResponses !== undefined,
          );
          assert.equal(rounds.length, 3);
        } else {
          assert.equal(requests[0].method, 'initialize');
          assert.ok(!requests.some((m) => m.params?._meta?.[VERSION_KEY] !== undefined));
        }
      } finally {
        await session.close();
      }
    });
  }

  test('a listen is acknowledged with the honoured filter and streams what the filter asked for, in both eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const session = await connectUrl(client(era), url);
      try {
        const listen = await session.listen({
          toolsListChanged: true,
          resourceSubscriptions: ['demo://readme'],
        });
        assert.deepEqual(listen.honoured, {
          toolsListChanged: true,
          resourceSubscriptions: ['demo://readme'],
        });
        const seen: string[] = [];
        const reading = (async () => {
          for await (const event of listen) {
            if (event.type === 'notification') seen.push(event.notification.method);
          }
        })();
        await session.callTool('touch_readme');
        await session.callTool('toggle_tool');
        await until(
          () =>
            seen.includes('notifications/resources/updated') &&
            seen.includes('notifications/tools/list_changed'),
          10_000,
          `${era}: ${seen}`,
        );
        await session.callTool('toggle_tool');
        await listen.close();
        await reading;
        assert.deepEqual(await listen.ended, { reason: 'closed' });
      } finally {
        await session.close();
      }
    }
  });
});
