// `mcpwire serve --redis URL ./module.mjs` on two processes behind a round-robin proxy (no affinity): a module's
// Server, exported as itself or made by a function, is served across processes like the demo. A 2025 session
// opened on one process is served by the other, its elicitation answered wherever it lands; a 2026 round's retry
// reaches the other process and is opened there with the cluster's key. Needs `npm run build` and redis-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../src/test-support/round-robin-proxy.js';

let redis: RedisBackend;
before(async () => {
  redis = await startRedisBackend();
  // Not inherited: each process must take the cluster's key from Redis.
  delete process.env.MCPWIRE_REQUEST_STATE_SECRET;
});
after(async () => {
  await redis?.stop();
});

for (const fixture of ['greeter.mjs', 'greeter-factory.mjs']) {
  describe(`${fixture} on two serve --redis processes`, () => {
    let cluster: ProcessCluster;
    let proxy: RoundRobinProxy;
    before(async () => {
      const module = fileURLToPath(new URL(`../cli/fixtures/${fixture}`, import.meta.url));
      cluster = await startProcessCluster(2, { redis: redis.address, args: [module] });
      proxy = await startRoundRobinProxy(cluster.urls());
    });
    after(async () => {
      await proxy?.close();
      await cluster?.stopAll();
    });

    for (const era of ['modern', 'legacy'] as const) {
      test(`${era}: every call greets, whichever process serves each request`, async () => {
        const client = new Client(
          { name: 'test', version: '1.0.0' },
          { era, elicitation: { form: async () => ({ action: 'accept', content: { name: 'Ada' } }) } },
        );
        const session = await connectUrl(client, `${proxy.url}/mcp`);
        try {
          for (let i = 0; i < 4; i++) {
            assert.deepEqual((await session.callTool('greet', {})).content, [
              { type: 'text', text: 'Hello, Ada' },
            ]);
          }
        } finally {
          await session.close();
        }
        const served = [...proxy.served.values()];
        assert.ok(
          served.length === 2 && served.every((count) => count > 0),
          `requests per process: ${served}`,
        );
      });
    }
  });
}
