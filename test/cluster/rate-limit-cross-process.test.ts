// `mcpwire serve --redis --rate-limit 4` on two processes: a caller's requests are counted over both (one Redis
// script per request), so its fifth request of the minute is refused 429 whichever process it reaches, while
// another caller (another address) is still served; with Redis stopped, each process counts its own and keeps
// serving. Needs `npm run build` and redis-server on PATH.
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
  cluster = await startProcessCluster(2, { redis: redis.address, args: ['--rate-limit', '4'] });
});

after(async () => {
  await cluster?.stopAll();
  await redis?.stop();
});

/** A modern tools/list from `address` to `url`: its status, and its body. */
async function list(address: string, url: string, id: number) {
  const res = await postFrom(address, url, modernMessage(id, 'tools/list'), modernHeaders('tools/list'));
  return { status: res.status, retryAfter: res.retryAfter, body: JSON.parse(res.text) };
}

test('the window is counted over both processes: the fifth request is 429 on either', async () => {
  const [a, b] = cluster.urls().map((url) => `${url}/mcp`);
  const statuses: number[] = [];
  for (let id = 1; id <= 4; id++) statuses.push((await list('127.0.0.1', id % 2 ? a! : b!, id)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200]);
  for (const url of [a!, b!]) {
    const refused = await list('127.0.0.1', url, 9);
    assert.equal(refused.status, 429);
    assert.ok(
      Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60,
      String(refused.retryAfter),
    );
    assert.match(refused.body.error.message, /sent the maximum of 4 requests in 60 s/);
  }
  // Another caller has an allowance of its own.
  assert.equal((await list('127.0.0.2', b!, 10)).status, 200);
});

test('with Redis down each process counts its own, and keeps serving', async () => {
  const [a] = cluster.urls().map((url) => `${url}/mcp`);
  await redis.stop();
  const statuses: number[] = [];
  for (let id = 1; id <= 5; id++) statuses.push((await list('127.0.0.3', a!, id)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
});
