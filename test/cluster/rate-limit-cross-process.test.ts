// `mcpwire serve --redis --rate-limit 6 --max-in-flight 2` on two processes: a caller's requests are counted over
// both (one Redis script per request), so its seventh request of the minute is refused 429 whichever process it
// reaches, while another caller (another address) is still served; two calls running on two processes leave no
// room for a third on either; with Redis stopped, each process counts its own and keeps serving. Needs `npm run
// build` and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postFrom } from '../../src/test-support/mcp-http.js';
import { modernHeaders, modernMessage } from '../../src/test-support/modern-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';

let redis: RedisBackend;
let cluster: ProcessCluster;

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(2, {
    redis: redis.address,
    args: ['--rate-limit', '6', '--max-in-flight', '2'],
  });
});

after(async () => {
  await cluster?.stopAll();
  await redis?.stop();
});

/** A modern tools/list from `address` to `url`: its status, and its body. */
async function list(address: string, url: string, id: number) {
  const res = await postFrom(address, url, modernMessage(id, 'tools/list'), modernHeaders('tools/list'));
  return { status: res.status, retryAfter: res.retryAfter, body: JSON.parse(await res.text()) };
}

test('the window is counted over both processes: the seventh request is 429 on either', async () => {
  const [a, b] = cluster.urls().map((url) => `${url}/mcp`);
  const statuses: number[] = [];
  for (let id = 1; id <= 6; id++) statuses.push((await list('127.0.0.1', id % 2 ? a! : b!, id)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
  for (const url of [a!, b!]) {
    const refused = await list('127.0.0.1', url, 9);
    assert.equal(refused.status, 429);
    assert.ok(
      Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60,
      String(refused.retryAfter),
    );
    assert.match(refused.body.error.message, /sent the maximum of 6 requests in 60 s/);
  }
  // Another caller has an allowance of its own.
  assert.equal((await list('127.0.0.2', b!, 10)).status, 200);
});

/**
 * A modern call of the demo's long_running (4 s, progress each second) from `address`: resolved once its answer has
 * begun (its first progress: the call runs); `text()` waits for its end.
 */
function startLongCall(address: string, url: string, id: number) {
  const body = modernMessage(
    id,
    'tools/call',
    { name: 'long_running', arguments: { duration: 4, steps: 4 } },
    { meta: { progressToken: `p${id}` } },
  );
  return postFrom(address, url, body, modernHeaders('tools/call', 'long_running'));
}

test('requests in flight are counted over both processes: two running leave no room for a third', async () => {
  const [a, b] = cluster.urls().map((url) => `${url}/mcp`);
  const [first, second] = await Promise.all([
    startLongCall('127.0.0.4', a!, 1),
    startLongCall('127.0.0.4', b!, 2),
  ]);
  for (const url of [a!, b!]) {
    const refused = await list('127.0.0.4', url, 3);
    assert.equal(refused.status, 429);
    assert.match(refused.body.error.message, /has the maximum of 2 requests in flight/);
  }
  await Promise.all([first.text(), second.text()]);
  assert.deepEqual([first.status, second.status], [200, 200]);
  assert.equal((await list('127.0.0.4', a!, 4)).status, 200);
});

test('with Redis down each process counts its own, and keeps serving', async () => {
  const [a] = cluster.urls().map((url) => `${url}/mcp`);
  await redis.stop();
  const statuses: number[] = [];
  for (let id = 1; id <= 7; id++) statuses.push((await list('127.0.0.3', a!, id)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
});
