import { randomUUID } from 'node:crypto';
import { RedisCluster } from '../cluster/redis-cluster.js';
import type { RedisClusterOptions } from '../cluster/redis-cluster-options.js';
import { createDemoServer } from '../demo/demo-server.js';
import type { RedisAddress } from '../eventstore/redis-address.js';
import { fromNode } from '../http/node-adapter.js';
import type { StreamableHTTPOptions } from '../server/http/handler-options.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import type { Server } from '../server/server.js';
import { type Served, serveOn } from './mcp-http.js';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';

/** One server process of a test: its definition, handler, cluster and HTTP listener. */
export interface Node {
  readonly server: Server;
  readonly cluster: RedisCluster;
  readonly handler: StreamableHTTPHandler;
  readonly served: Served;
  readonly origin: string;
  readonly errors: Error[];
}

export interface Deployment {
  readonly nodes: Node[];
  readonly proxy: RoundRobinProxy;
  /** The MCP endpoint through the proxy. */
  readonly url: string;
  close(): Promise<void>;
}

/** One value for every process, or one per process. */
export type PerNode<T> = T | readonly T[];

/**
 * `count` processes of the demo server, each with its own `Server` and `RedisCluster` (one key prefix for the
 * deployment: tests never see each other's sessions), and a balancer with no affinity in front. `address` and
 * `options` may differ per process. With `principals`, each request's principal is its `x-user` header, as an
 * authentication layer would set it.
 */
export async function deploy(
  address: PerNode<RedisAddress>,
  options: PerNode<StreamableHTTPOptions> = {},
  count = 2,
  principals = false,
  clusterOptions: Omit<RedisClusterOptions, 'redis' | 'keyPrefix'> = {},
): Promise<Deployment> {
  const keyPrefix = `test-${randomUUID()}`;
  const nodes: Node[] = [];
  for (let i = 0; i < count; i++) {
    const demo = createDemoServer();
    const cluster = new RedisCluster({ ...clusterOptions, redis: nth(address, i), keyPrefix });
    const errors: Error[] = [];
    const handler = new StreamableHTTPHandler(demo, {
      ...nth(options, i),
      cluster,
      onerror: (e) => errors.push(e),
    });
    await cluster.whenReady();
    const served = await serveOn(
      principals
        ? (req, res) => {
            const exchange = fromNode(req, res);
            exchange.principal = req.headers['x-user'];
            handler.handle(exchange);
          }
        : handler.node(),
    );
    nodes.push({ server: demo, cluster, handler, served, origin: `http://127.0.0.1:${served.port}`, errors });
  }
  const proxy = await startRoundRobinProxy(nodes.map((n) => n.origin));
  return {
    nodes,
    proxy,
    url: `${proxy.url}/mcp`,
    async close() {
      await proxy.close();
      for (const node of nodes) {
        await node.handler.close({ deadlineMs: 0 });
        await node.served.close();
        await node.cluster.close();
      }
    },
  };
}

function nth<T>(value: PerNode<T>, i: number): T {
  return Array.isArray(value) ? value[i] : (value as T);
}
