// The tests of redis-cluster.test.ts, on a Redis Cluster of three masters and their replicas (sessions spread over
// the shards, pub/sub across them) instead of one redis-server.
import { useRedisCluster } from '../test-support/redis-backend.js';

useRedisCluster();
await import('./redis-cluster.test.js');
