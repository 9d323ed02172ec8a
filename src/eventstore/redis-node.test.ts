import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRedisNode } from './redis-node.js';

test('a Redis Cluster node is host:port or a redis:// URL, its credentials and TLS read from the URL', () => {
  assert.deepEqual(parseRedisNode('10.0.0.1:7000'), {
    host: '10.0.0.1',
    port: 7000,
    username: undefined,
    password: undefined,
    tls: false,
  });
  assert.equal(parseRedisNode('redis.internal').port, 6379, 'the default port');
  assert.deepEqual(parseRedisNode('rediss://app:p%40ss@[::1]:7001'), {
    host: '::1',
    port: 7001,
    username: 'app',
    password: 'p@ss',
    tls: true,
  });
  for (const bad of ['', 'http://10.0.0.1:7000', 'redis://10.0.0.1:7000/2', '10.0.0.1:notaport', 'a b:1']) {
    assert.throws(() => parseRedisNode(bad), {
      name: 'RangeError',
      message: /is not the address of a Redis node/,
    });
  }
});
