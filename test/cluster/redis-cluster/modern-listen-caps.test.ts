// The tests of ../modern-listen-caps.test.ts, with the `mcpwire serve` processes on a Redis Cluster of three masters and their
// replicas (`--redis-cluster`) instead of one redis-server.
import { useRedisCluster } from '../../../src/test-support/redis-backend.js';

useRedisCluster();
await import('../modern-listen-caps.test.js');
