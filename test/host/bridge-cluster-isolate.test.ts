// `mcpwire serve --redis URL --isolate -- CMD` on two processes behind a balancer with no session affinity: each
// 2025 session's child lives in one process, and every request of the session, whichever process it reaches, is
// served by that child (its state kept, what it asks reaching the client); DELETE on either ends the child; when
// the process holding it dies, the other takes the session over with a child of its own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client, connectUrl } from '../../src/client/index.js';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { alive } from '../../src/test-support/process-alive.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../src/test-support/round-robin-proxy.js';
import { bridgeChild } from '../../src/test-support/served-bridge.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;

/** The process that started process `pid` (/proc/<pid>/stat, the field after the state). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Two `serve --redis --isolate -- CMD` processes and a balancer in front of them, for one describe. */
function twoProcesses(child: { command: string; args: string[] }) {
  const made = {} as { runs: CliRun[]; backends: string[]; proxy: RoundRobinProxy };
  before(async () => {
    const served = await Promise.all(
      ['one', 'two'].map((name) =>
        serveDemo(
          [
            '--redis',
            redis.url,
            '--isolate',
            '--no-legacy-sse',
            '--log-format',
            'text',
            '--',
            child.command,
            ...child.args,
          ],
          { MCPWIRE_TEST_NAME: name },
        ),
      ),
    );
    made.runs = served.map((s) => s.run);
    made.backends = served.map((s) => s.url.replace(/\/mcp$/, ''));
    made.proxy = await startRoundRobinProxy(made.backends);
  });
  after(async () => {
    await made.proxy?.close();
    killCliRuns();
  });
  return made;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(() => redis?.stop());

describe('serve --redis --isolate -- CMD on two processes', () => {
  const made = twoProcesses(bridgeChild('--legacy').command);

  const connect = (client = new Client({ name: 'c', version: '1' }, { era: 'legacy' })) =>
    within(connectUrl(client, `${made.proxy.url}/mcp`), MS, 'connect');
  type Session = Awaited<ReturnType<typeof connect>>;
  const call = async (session: Session, tool: string) => toolText(await session.callTool(tool));

  test("a session's requests reaching either process are served by its one child, which DELETE ends", async () => {
    const { proxy, backends } = made;
    const before = new Map(proxy.served);
    const a = await connect();
    const b = await connect();
    const pidA = Number(await call(a, 'pid'));
    const pidB = Number(await call(b, 'pid'));
    assert.notEqual(pidA, pidB, 'each session has a child of its own');
    // The child keeps its state whichever process each call reaches: 1, 2, 3, 4 in one counter.
    const counts = [];
    for (let i = 0; i < 4; i++) counts.push(await call(a, 'bump'));
    assert.deepEqual(counts, ['1', '2', '3', '4']);
    assert.equal(await call(b, 'bump'), '1', "the other session's child has a counter of its own");
    for (let i = 0; i < 3; i++) assert.equal(Number(await call(a, 'pid')), pidA);
    for (const backend of backends) {
      assert.ok(
        (proxy.served.get(backend) ?? 0) - (before.get(backend) ?? 0) >= 4,
        `${backend} served requests`,
      );
    }
    await a.close(); // the DELETE reaches either process; the child ends wherever it is
    await until(() => !alive(pidA), MS, `the child ${pidA} of the deleted session to exit`);
    assert.ok(alive(pidB));
    await b.close();
    await until(() => !alive(pidB), MS, `the child ${pidB} to exit`);
  });

  test("what the child asks reaches the client, whichever process the session's call reached", async () => {
    const client = new Client(
      { name: 'c', version: '1' },
      { era: 'legacy', elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
    );
    const session = await connect(client);
    try {
      // Two calls: the balancer sends one to each process.
      assert.equal(await call(session, 'ask'), 'hello Ada');
      assert.equal(await call(session, 'ask'), 'hello Ada');
    } finally {
      await session.close();
    }
  });

  test("a subscription made through either process brings the session its own child's updates", async () => {
    const [subscriber, other] = await Promise.all([connect(), connect()]);
    const heard: string[] = [];
    subscriber.on('resourceUpdated', (params) => heard.push(params.uri));
    const otherHeard: string[] = [];
    other.on('resourceUpdated', (params) => otherHeard.push(params.uri));
    try {
      // The subscription goes to the process that does not hold the child: it is told to the one that does.
      const pid = Number(await call(subscriber, 'pid'));
      const holder = made.runs.findIndex((run) => run.child.pid === parentOf(pid));
      made.proxy.setBackends([made.backends[1 - holder]!]);
      await subscriber.subscribeResource('note://counter');
      made.proxy.setBackends(made.backends);
      for (let i = 1; i <= 4; i++) {
        assert.equal(await call(subscriber, 'bump'), String(i));
        await until(() => heard.length === i, MS, `update ${i}`);
      }
      await other.subscribeResource('note://counter');
      assert.equal(await call(other, 'bump'), '1');
      await until(() => otherHeard.length === 1, MS, "the other session's update");
      assert.equal(heard.length, 4, "one session's child tells only its session");
    } finally {
      await Promise.all([subscriber.close(), other.close()]);
    }
  });

  test('when the process holding the child dies, the other serves the session with a child of its own', async () => {
    const { proxy, backends, runs } = made;
    const session = await connect();
    const first = Number(await call(session, 'pid'));
    assert.equal(await call(session, 'bump'), '1');
    const holder = runs.find((run) => run.child.pid === parentOf(first))!;
    assert.ok(holder, 'the child was started by one of the two processes');
    const survivor = backends[runs.indexOf(holder) === 0 ? 1 : 0]!;
    proxy.setBackends([survivor]);
    holder.child.kill('SIGKILL');
    await holder.exit(MS);
    const second = Number(await call(session, 'pid'));
    assert.notEqual(second, first);
    assert.equal(runs[backends.indexOf(survivor)]!.child.pid, parentOf(second));
    // A new child: what the old one held is gone, as when a child restarts.
    assert.equal(await call(session, 'bump'), '1');
    assert.equal(await call(session, 'bump'), '2');
    await session.close();
    await until(() => !alive(second), MS, `the child ${second} to exit`);
  });
});

describe('serve --redis --isolate -- server-everything on two processes: roots', () => {
  const made = twoProcesses({ command: process.execPath, args: [EVERYTHING, 'stdio'] });

  test("the child reads its session's roots, and reads them again when they change, through either process", async () => {
    let roots = [{ uri: 'file:///work/alpha' }];
    let asked = 0;
    const client = new Client(
      { name: 'c', version: '1' },
      {
        era: 'legacy',
        roots: () => {
          asked++;
          return roots;
        },
      },
    );
    const session = await within(connectUrl(client, `${made.proxy.url}/mcp`), MS, 'connect');
    const listed = async () => toolText(await session.callTool('get-roots-list'));
    try {
      assert.match(await listed(), /file:\/\/\/work\/alpha/);
      assert.match(await listed(), /file:\/\/\/work\/alpha/);
      for (const [i, next] of ['beta', 'gamma'].entries()) {
        // One change is posted to each process: the one holding the child hears of both.
        const before = asked;
        roots = [{ uri: `file:///work/${next}` }];
        made.proxy.setBackends([made.backends[i]!]);
        await session.rootsChanged();
        made.proxy.setBackends(made.backends);
        await until(() => asked > before, MS, 'the child to ask for the new roots');
        // The child keeps the roots once our answer reaches it, which a call sent after the answer can overtake.
        const root = new RegExp(`file:///work/${next}`);
        await until(async () => root.test(await listed()), MS, `the child to list ${next}`);
      }
    } finally {
      await session.close();
    }
  });
});

describe('serve --workers 2 --redis --isolate -- CMD', () => {
  test('each session keeps one child of its own, whichever worker its connections reach', async () => {
    const { command, args } = bridgeChild('--legacy').command;
    const { run, url } = await serveDemo([
      '--workers',
      '2',
      '--redis',
      redis.url,
      '--isolate',
      '--no-legacy-sse',
      '--',
      command,
      ...args,
    ]);
    try {
      const sessions = await Promise.all(
        [1, 2, 3].map(() =>
          within(connectUrl(new Client({ name: 'c', version: '1' }, { era: 'legacy' }), url), MS, 'connect'),
        ),
      );
      for (const session of sessions) {
        assert.equal(toolText(await session.callTool('bump')), '1');
        assert.equal(toolText(await session.callTool('bump')), '2');
      }
      await Promise.all(sessions.map((s) => s.close()));
    } finally {
      run.child.kill('SIGINT');
      await run.exit(MS).catch(() => {});
    }
  });
});
