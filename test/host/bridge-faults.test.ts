// The bridge when its child misbehaves: it exits mid-call, it is cancelled, it writes garbage, it never answers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession, connectUrl } from '../../src/client/index.js';
import { type Bridge, bridgeServer } from '../../src/host/bridge-server.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { handWrittenServer } from '../../src/test-support/hand-written-server.js';
import { jsonBody } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import { officialV2StdioCommand } from '../../src/test-support/official-v2-server.js';
import { bridgeChild, serveBridge } from '../../src/test-support/served-bridge.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;

/**
 * A 2025 stdio server written by hand that reads every request before initialize and answers none of them (as
 * some do): then initialize with 2025-11-25, and any later request with an empty result.
 */
const DEAF_UNTIL_INITIALIZE = handWrittenServer(
  `if (!initialized && m.method !== 'initialize') continue;
    initialized = true;
    answer(m, { result: m.method === 'initialize'
      ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'deaf', version: '1' } }
      : {} });`,
  'let initialized = false;',
);
describe('bridge faults (a child of our own that misbehaves on demand)', () => {
  let bridge: Bridge;
  let close: () => Promise<void>;
  let session: ClientSession;
  let url: string;
  const stderr: string[] = [];
  const reports: string[] = [];
  /** Resolves once the child has begun one more `wait` than it had when called: the request is in flight there. */
  const waitBegun = () => {
    const waits = () => stderr.filter((line) => /^waiting request /.test(line)).length;
    const before = waits();
    return () => until(() => waits() > before, MS, 'the child to begin the wait');
  };

  before(async () => {
    ({ bridge, url, close } = await serveBridge({
      upstream: bridgeChild(),
      holdMs: 500,
      stderr: (line) => stderr.push(line),
      report: (message) => reports.push(message),
    }));
    session = await within(
      connectUrl(new Client({ name: 'c', version: '1' }, { era: 'legacy' }), url),
      MS,
      'connect',
    );
  });

  after(async () => {
    await session?.close();
    await close?.();
  });

  test('a child that exits mid-call: the call fails naming the exit and its stderr; it is restarted', async () => {
    const before = toolText(await session.callTool('pid'));
    await assert.rejects(session.callTool('crash'), (err: Error) => {
      assert.ok(err instanceof McpError, String(err));
      assert.match(err.message, /ended while answering tools\/call/);
      assert.match(err.message, /code 3/);
      assert.match(err.message, /about to crash on purpose/);
      return true;
    });
    assert.ok(
      reports.some((r) => /the server behind the bridge is down/.test(r)),
      reports.join('\n'),
    );
    await until(() => bridge.retryAfterMs() === undefined, MS, 'the child started again');
    const after = toolText(await session.callTool('pid'));
    assert.notEqual(after, before, 'a new process answers');
  });

  test('a child killed (SIGKILL) mid-call: the call fails naming the signal; the next call works', async () => {
    const pid = Number(toolText(await session.callTool('pid')));
    const begun = waitBegun();
    const call = session.callTool('wait', { ms: 60_000 });
    await begun();
    process.kill(pid, 'SIGKILL');
    await assert.rejects(call, (err: Error) => {
      assert.match(err.message, /ended while answering tools\/call.*SIGKILL/s);
      return true;
    });
    await until(() => bridge.retryAfterMs() === undefined, MS, 'the child started again');
    assert.notEqual(Number(toolText(await session.callTool('pid'))), pid);
  });

  test("the client's cancellation reaches the child, which stops the request", async () => {
    const controller = new AbortController();
    const begun = waitBegun();
    const call = session.callTool('wait', { ms: 60_000 }, { signal: controller.signal });
    // Cancelled once the child has it (a fixed sleep may end before the request reaches the child).
    await begun();
    controller.abort(new Error('changed my mind'));
    await assert.rejects(call);
    await until(
      () => stderr.some((line) => /^cancelled request /.test(line)),
      MS,
      'the child heard the cancellation',
    );
  });

  test('a line on the child’s stdout that is not JSON-RPC is reported and skipped', async () => {
    const result = await session.callTool('garbage');
    assert.equal(toolText(result), 'still here');
    await until(() => reports.some((r) => /JSON/i.test(r)), MS, 'the garbage line reported');
  });

  test("the child's elicitation, for a 2025 client: a server request, whose answer the child gets", async () => {
    const asking = new Client(
      { name: 'c', version: '1' },
      { era: 'legacy', elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
    );
    const asker = await within(connectUrl(asking, url), MS, 'connect');
    try {
      assert.equal(toolText(await asker.callTool('ask')), 'hello Ada');
    } finally {
      await asker.close();
    }
  });

  test("the child's elicitation, for a 2026 client: an input round, the retry's answer given to the child", async () => {
    const asking = new Client(
      { name: 'c', version: '1' },
      { era: 'modern', elicitation: { form: () => ({ action: 'accept', content: { name: 'Grace' } }) } },
    );
    const asker = await within(connectUrl(asking, url), MS, 'connect');
    try {
      assert.equal(toolText(await asker.callTool('ask')), 'hello Grace');
    } finally {
      await asker.close();
    }
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`a log message of the child reaches the ${era} client whose request it was made during`, async () => {
      const client = new Client({ name: 'c', version: '1' }, { era });
      const logger = await within(connectUrl(client, url), MS, 'connect');
      try {
        if (era === 'modern') await logger.setLoggingLevel('info');
        const heard: unknown[] = [];
        logger.on('log', (params) => heard.push([params.level, params.logger, params.data]));
        assert.equal(toolText(await logger.callTool('log')), 'logged');
        await until(() => heard.length > 0, MS, 'the log message');
        assert.deepEqual(heard, [['warning', 'bridge-child', { said: 'from the child' }]]);
      } finally {
        await logger.close();
      }
    });
  }

  test('a log message made while several requests are in flight goes with each of them, and to no other client', async () => {
    let asked!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    // The waiter's request is in flight in the child while the child's question waits for its answer.
    const elicitation = {
      form: async () => {
        asked();
        await answered;
        return { action: 'accept' as const, content: { name: 'Ada' } };
      },
    };
    const connect = (client = new Client({ name: 'c', version: '1' }, { era: 'legacy' })) =>
      within(connectUrl(client, url), MS, 'connect');
    const [waiter, logger, idle] = await Promise.all([
      connect(new Client({ name: 'w', version: '1' }, { era: 'legacy', elicitation })),
      connect(),
      connect(),
    ]);
    const heard = new Map<ClientSession, number>([
      [waiter, 0],
      [logger, 0],
      [idle, 0],
    ]);
    for (const client of heard.keys()) client.on('log', () => heard.set(client, heard.get(client)! + 1));
    try {
      const waiting = waiter.callTool('ask');
      await within(inFlight, MS, "the child's question");
      assert.equal(toolText(await logger.callTool('log')), 'logged');
      assert.equal(heard.get(logger), 1, 'the client whose request made it');
      await until(() => heard.get(waiter) === 1, MS, 'the other client with a request in flight to hear it');
      answer();
      assert.equal(toolText(await waiting), 'hello Ada');
      // The idle client's own log is the only one it hears (a message to every session would have come first).
      assert.equal(toolText(await idle.callTool('log')), 'logged');
      assert.equal(heard.get(idle), 1);
    } finally {
      answer();
      await Promise.all([waiter.close(), logger.close(), idle.close()]);
    }
  });

  test('a child that answers nothing before initialize (not server/discover, not ping) starts in the 2025 era within the handshake bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpwire-deaf-child-'));
    const script = join(dir, 'deaf-child.cjs');
    writeFileSync(script, DEAF_UNTIL_INITIALIZE);
    const deaf = await within(
      bridgeServer({
        upstream: { command: { command: process.execPath, args: [script] } },
        handshakeTimeoutMs: 4000,
        stderr: () => {},
        report: () => {},
      }),
      MS,
      'the bridge to start',
    );
    try {
      assert.equal(deaf.retryAfterMs(), undefined, 'the child is up');
    } finally {
      await deaf.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a child that never answers its handshake: a timeout error naming the bound', async () => {
    await assert.rejects(
      bridgeServer({
        upstream: bridgeChild('--hang'),
        handshakeTimeoutMs: 500,
        stderr: () => {},
        report: () => {},
      }),
      /did not answer its handshake within 500 ms/,
    );
  });
});

describe('bridge ↔ a 2025-only child that asks its client things', () => {
  let close: () => Promise<void>;
  let url: string;
  const stderr: string[] = [];

  before(async () => {
    ({ url, close } = await serveBridge({
      upstream: bridgeChild('--legacy'),
      holdMs: 500,
      stderr: (line) => stderr.push(line),
      report: () => {},
    }));
  });

  after(() => close?.());

  for (const era of ['legacy', 'modern'] as const) {
    test(`a ${era} client answers the 2025 child's elicitation`, async () => {
      const asking = new Client(
        { name: 'c', version: '1' },
        { era, elicitation: { form: () => ({ action: 'accept', content: { name: 'Hopper' } }) } },
      );
      const asker = await within(connectUrl(asking, url), MS, 'connect');
      try {
        assert.equal(toolText(await asker.callTool('ask')), 'hello Hopper');
      } finally {
        await asker.close();
      }
    });
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`a ${era} client hears the progress the child made while the client answered its elicitation`, async () => {
      let asker: ClientSession | undefined;
      const events: string[] = [];
      const nudged: string[] = [];
      const asking = new Client(
        { name: 'c', version: '1' },
        {
          era,
          elicitation: {
            // Answered once the child has sent progress 2: a 2025 request hears it at once, on its own stream; a
            // 2026 one ended its round with the ask, and hears it in the retry's.
            form: async () => {
              nudged.push(toolText(await asker!.callTool('nudge')));
              if (era === 'legacy') await until(() => events.includes('2/3'), MS, 'progress 2, live');
              return { action: 'accept', content: { name: 'Lovelace' } };
            },
          },
        },
      );
      asker = await within(connectUrl(asking, url), MS, 'connect');
      try {
        const result = await asker.callTool(
          'ask-in-steps',
          {},
          { onprogress: (p) => events.push(`${p.progress}/${p.total}`) },
        );
        events.push(toolText(result));
        assert.deepEqual(nudged, ['nudged']);
        assert.deepEqual(events, ['1/3', '2/3', '3/3', 'hello Lovelace']);
      } finally {
        await asker.close();
      }
    });
  }

  test('a 2026 client that did not declare elicitation: the child hears why, and the client gets its answer', async () => {
    const response = await postModern(
      url,
      1,
      'tools/call',
      { name: 'ask', arguments: {} },
      { capabilities: {} },
    );
    const body = await jsonBody(response);
    assert.equal(body.result?.resultType, 'complete', JSON.stringify(body));
    assert.equal(body.result.isError, true);
    assert.match(body.result.content[0].text, /no name: .*elicitation/i);
  });

  test('a 2026 client that never sends its retry: the child’s request is released after the bound', async () => {
    const response = await postModern(
      url,
      2,
      'tools/call',
      { name: 'ask', arguments: {} },
      { capabilities: { elicitation: { form: {} } } },
    );
    const body = await jsonBody(response);
    assert.equal(body.result?.resultType, 'input_required', JSON.stringify(body));
    const asks = Object.values(body.result.inputRequests as Record<string, { method: string }>);
    assert.deepEqual(
      asks.map((a) => a.method),
      ['elicitation/create'],
    );
    await until(
      () =>
        stderr.some((line) =>
          /elicitation failed: .*did not send the retry of this request within 500 ms/.test(line),
        ),
      MS,
      'the held request released',
    );
  });
});

describe('bridge ↔ the official v2 server over stdio, a 2026-only child', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({
      upstream: { command: officialV2StdioCommand({ rejectLegacy: true }) },
      stderr: () => {},
      report: () => {},
    }));
  });

  after(() => close?.());

  for (const era of ['legacy', 'modern'] as const) {
    test(`a ${era} client calls its tools, and answers its input round (ask_name)`, async () => {
      const client = new Client(
        { name: 'c', version: '1' },
        { era, elicitation: { form: () => ({ action: 'accept', content: { name: 'Noether' } }) } },
      );
      const session = await within(connectUrl(client, url), MS, 'connect');
      try {
        assert.equal(session.serverInfo.name, 'official-v2-fixture');
        assert.equal(toolText(await session.callTool('echo', { message: 'hi' })), 'hi');
        assert.equal(toolText(await session.callTool('ask_name')), 'Hello Noether');
      } finally {
        await session.close();
      }
    });
  }
});
