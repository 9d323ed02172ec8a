// `mcpwire serve --redis URL -- CMD` on two processes, as behind a balancer with no sticky sessions: a 2026
// client's retry of a request whose child asked it something reaches the other process, which has the process
// holding the request serve the round; when that process is gone, the retry fails saying to send the request anew.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, connectUrl } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';
import { bridgeChild } from '../../src/test-support/served-bridge.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
const { command, args } = bridgeChild('--legacy').command;

describe('serve -- CMD on two processes sharing Redis', () => {
  let redis: RedisServer;
  const serve = (name: string) =>
    serveDemo(['--redis', redis.url, '--no-legacy-sse', '--log-format', 'text', '--', command, ...args], {
      MCPWIRE_TEST_NAME: name,
    });

  before(async () => {
    redis = await startRedisServer();
  });

  after(async () => {
    killCliRuns();
    await redis?.stop();
  });

  /**
   * A 2026 client of `first` whose retries go to `second` instead (`beforeRetry` runs first): what a balancer may
   * do. Answers the child's elicitation with Ada.
   */
  async function askedAcross(
    first: string,
    second: string,
    beforeRetry: () => Promise<void> = async () => {},
  ) {
    let retries = 0;
    const across: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"requestState"')) {
        retries++;
        await beforeRetry();
        return fetch(second, init);
      }
      return fetch(input, init);
    };
    const client = new Client(
      { name: 'c', version: '1' },
      { era: 'modern', elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
    );
    const session = await within(connectUrl(client, first, { fetch: across }), MS, 'connect');
    try {
      return { result: await session.callTool('ask'), retries: () => retries };
    } finally {
      await session.close();
    }
  }

  test('the retry reaching the other process is served by the one holding the request', async () => {
    const one = await serve('one');
    const two = await serve('two');
    try {
      const { result, retries } = await askedAcross(one.url, two.url);
      assert.equal(toolText(result), 'hello Ada');
      assert.equal(retries(), 1);
      // The second process served the retry: it logged the request; the child of the first answered it.
      assert.match(two.run.stderr(), /tools\/call/);
    } finally {
      await stop(one.run, two.run);
    }
  });

  test('when the process holding the request is gone, the retry fails saying to send it anew', async () => {
    const one = await serve('one');
    const two = await serve('two');
    try {
      await assert.rejects(
        askedAcross(one.url, two.url, async () => {
          one.run.child.kill('SIGKILL');
          await one.run.exit(MS);
        }),
        (err: Error) => {
          assert.ok(err instanceof McpError, String(err));
          assert.equal(err.code, -32602);
          assert.match(err.message, /held by another server process, which is gone: send the request anew/);
          return true;
        },
      );
    } finally {
      await stop(one.run, two.run);
    }
  });
});

async function stop(...runs: CliRun[]): Promise<void> {
  for (const run of runs) run.child.kill('SIGINT');
  await Promise.all(runs.map((run) => run.exit(MS).catch(() => {})));
}
