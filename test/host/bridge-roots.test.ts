// A bridged server's `roots/list` reaches the client it is for: server-everything (the official reference
// server, over stdio) asks for roots when its `get-roots-list` tool runs and when a client's roots change. Through
// a shared child, the request made during a 2026 call is an input round of that call, answered by the official
// client 2.4.0; with `isolate`, each 2025 session's child asks that session (even with no request in flight), and
// hears when the session's roots change. A child that asks during a 2026 request that may not ask (a completion)
// hears why it cannot, and the client gets a well-formed answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client, type ClientOptions, connectUrl } from '../../src/client/index.js';
import { bridgeChild, serveBridge } from '../../src/test-support/served-bridge.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
const everything = { command: { command: process.execPath, args: [EVERYTHING, 'stdio'] } };

describe('roots through a shared child', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({ upstream: everything, stderr: () => {}, report: () => {} }));
  });

  after(() => close?.());

  test("the official client 2.4.0 pinned to 2026-07-28 answers the child's roots/list as an input round", async () => {
    const client = new ClientV2(
      { name: 'v2', version: '2.4.0' },
      { capabilities: { roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let asked = 0;
    client.setRequestHandler('roots/list', () => {
      asked++;
      return { roots: [{ uri: 'file:///work/from-v2', name: 'from-v2' }] };
    });
    await within(client.connect(new TransportV2(new URL(url))), MS, 'v2 connect');
    try {
      const listed = await client.callTool({ name: 'get-roots-list', arguments: {} });
      assert.match(JSON.stringify(listed.content), /file:\/\/\/work\/from-v2/);
      assert.equal(asked, 1);
    } finally {
      await client.close();
    }
  });
});

describe('roots with isolate: each 2025 session its own child', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({
      upstream: everything,
      isolate: true,
      stderr: () => {},
      report: () => {},
    }));
  });

  after(() => close?.());

  const connect = (roots: ClientOptions['roots']) =>
    within(connectUrl(new Client({ name: 'c', version: '1' }, { era: 'legacy', roots }), url), MS, 'connect');
  const listed = async (session: Awaited<ReturnType<typeof connect>>) =>
    toolText(await session.callTool('get-roots-list'));

  test("each session's child reads that session's roots, and reads them again when they change", async () => {
    let alpha = [{ uri: 'file:///work/alpha' }];
    let asked = 0;
    const [a, b] = await Promise.all([
      connect(() => {
        asked++;
        return alpha;
      }),
      connect([{ uri: 'file:///work/beta' }]),
    ]);
    try {
      assert.match(await listed(a), /file:\/\/\/work\/alpha/);
      assert.match(await listed(b), /file:\/\/\/work\/beta/);
      assert.doesNotMatch(await listed(b), /alpha/);
      // The child hears roots/list_changed and asks again with no request in flight: its session answers.
      const before = asked;
      alpha = [{ uri: 'file:///work/alpha-2' }];
      await a.rootsChanged();
      await until(() => asked > before, MS, 'the child to ask for the new roots');
      // The child keeps the roots once our answer reaches it, which a call sent after the answer can overtake.
      await until(
        async () => /file:\/\/\/work\/alpha-2/.test(await listed(a)),
        MS,
        'the child to list alpha-2',
      );
      assert.match(await listed(b), /file:\/\/\/work\/beta/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('a 2025 child that asks for roots during a completion', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({
      upstream: bridgeChild('--legacy'),
      stderr: () => {},
      report: () => {},
    }));
  });

  after(() => close?.());

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} client: ${era === 'legacy' ? 'answers it as a server request' : 'the child hears that completion/complete may not ask'}`, async () => {
      const client = new Client({ name: 'c', version: '1' }, { era, roots: [{ uri: 'file:///work/here' }] });
      const session = await within(connectUrl(client, url), MS, 'connect');
      try {
        const { completion } = await session.complete(
          { type: 'ref/prompt', name: 'project' },
          { name: 'root', value: '' },
        );
        if (era === 'legacy') assert.deepEqual(completion.values, ['file:///work/here']);
        else {
          assert.equal(completion.values.length, 1);
          assert.match(
            completion.values[0]!,
            /^no roots: .*completion\/complete cannot ask the client: in the 2026-07-28 era only tools\/call, prompts\/get, resources\/read may/,
          );
        }
      } finally {
        await session.close();
      }
    });
  }
});
