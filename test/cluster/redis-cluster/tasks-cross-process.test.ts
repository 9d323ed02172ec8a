// The tests of ../tasks-cross-process.test.ts, with the `mcpwire serve` processes on a Redis Cluster of three masters
// and their replicas (`--redis-cluster`) instead of one redis-server.
import { useRedisCluster } from '../../../src/test-support/redis-backend.js';

useRedisCluster();
await import('../tasks-cross-process.test.js');
