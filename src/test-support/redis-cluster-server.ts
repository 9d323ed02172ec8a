import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { launchOnFreePort, type Running } from './redis-server.js';

/** A Redis Cluster of the tests' own on 127.0.0.1: three masters, each with one replica. */
export interface LocalRedisCluster {
  /** `{ cluster: ['127.0.0.1:<port>', …] }`, every node: what a RedisCluster or `serve --redis-cluster` takes. */
  readonly address: { readonly cluster: readonly string[] };
  /** The port of the master that serves `key` now. */
  masterOf(key: string): Promise<number>;
  /** The port of the replica of the master on `port`. */
  replicaOf(port: number): Promise<number>;
  /** Resolves once the replica of the master on `port` has every write that master made so far. */
  whenReplicated(port: number, timeoutMs?: number): Promise<void>;
  /** Kills the node on `port` at once (SIGKILL, as a crash would) and waits for it to exit. */
  kill(port: number): Promise<void>;
  /**
   * Resolves once the cluster is whole again after a kill: every slot served by a live master, and every live node
   * agreeing (`cluster_state:ok`); rejects after `timeoutMs`.
   */
  whenHealthy(timeoutMs?: number): Promise<void>;
  /** Kills every node and waits for them all. */
  stop(): Promise<void>;
}

const MASTERS = 3;
const READY_TIMEOUT_MS = 20_000;
/**
 * A node unreachable for this long is failing; its replica then takes over within a few times this: small, so that
 * a failover fits in a test, large enough not to be taken for a failure on a busy machine.
 */
export const NODE_TIMEOUT_MS = 1000;

/**
 * Starts six redis-servers in cluster mode (no persistence, each in a temporary folder, on free loopback ports,
 * the cluster bus on another), joins them with `redis-cli --cluster create … --cluster-replicas 1`, and resolves
 * once every node says the cluster is ok and every replica is in sync. The servers die with the test process,
 * however it ends (see `launch`).
 */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const nodes = new Map<number, Running>();
  const stop = async () => {
    const all = [...nodes.values()];
    nodes.clear();
    for (const { child } of all) child.stdin!.end();
    await Promise.all(all.map((n) => n.exited));
  };
  try {
    const launched = await Promise.allSettled(
      Array.from({ length: 2 * MASTERS }, async () => {
        // biome-ignore format: one option per line
        const { port, running } = await launchOnFreePort(async () => [
          '--cluster-enabled', 'yes',
          '--cluster-port', String(await freePort()),
          '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
          // A replica syncs at once, not after the 5 s a master waits by default for others to sync with.
          '--repl-diskless-sync-delay', '0',
        ]);
        nodes.set(port, running);
      }),
    );
    const failed = launched.find((l) => l.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const ports = [...nodes.keys()];
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    const cluster = localCluster(ports, nodes, stop);
    await cluster.whenHealthy(READY_TIMEOUT_MS);
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

function localCluster(
  ports: number[],
  nodes: Map<number, Running>,
  stop: () => Promise<void>,
): LocalRedisCluster {
  const live = () => ports.filter((p) => nodes.has(p));
  const topology = () => withNode(live()[0], (r) => r.call('CLUSTER', 'NODES') as Promise<string>);
  return {
    address: { cluster: ports.map((p) => `127.0.0.1:${p}`) },
    async masterOf(key) {
      const slot = (await withNode(live()[0], (r) => r.cluster('KEYSLOT', key))) as number;
      for (const node of parseNodes(await topology())) {
        if (node.master && node.slots.some(([from, to]) => from <= slot && slot <= to)) return node.port;
      }
      throw new Error(`No master serves slot ${slot}`);
    },
    async replicaOf(port) {
      const all = parseNodes(await topology());
      const id = all.find((n) => n.port === port)?.id;
      const replica = all.find((n) => !n.master && n.masterId === id && !n.failed);
      if (replica === undefined) throw new Error(`The node on port ${port} has no live replica`);
      return replica.port;
    },
    async whenReplicated(port, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await withNode(port, (r) => r.info('replication'));
        const offset = /master_repl_offset:(\d+)/.exec(info)?.[1];
        if (offset !== undefined && new RegExp(`slave0:.*offset=${offset},`).test(info)) return;
        if (Date.now() > deadline)
          throw new Error(`The replica of ${port} did not catch up in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async kill(port) {
      const node = nodes.get(port);
      if (node === undefined) return;
      nodes.delete(port);
      node.child.stdin!.end();
      await node.exited;
    },
    async whenHealthy(timeoutMs = READY_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        try {
          last = await health(live());
          if (last === '') return;
        } catch (err) {
          last = (err as Error).message;
        }
        if (Date.now() > deadline) {
          throw new Error(`The Redis Cluster was not healthy within ${timeoutMs} ms: ${last}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop,
  };
}

/** What is wrong with the cluster of the nodes on `ports`, seen from each; '' when nothing. */
async function health(ports: number[]): Promise<string> {
  for (const port of ports) {
    const state = await withNode(port, async (r) => {
      const info = (await r.cluster('INFO')) as string;
      if (!info.includes('cluster_state:ok')) return `node ${port}: ${info.split('\r\n')[0]}`;
      const nodes = parseNodes((await r.call('CLUSTER', 'NODES')) as string);
      const masters = nodes.filter((n) => n.master && !n.failed && n.slots.length > 0);
      if (masters.length !== MASTERS) return `node ${port} sees ${masters.length} masters with slots`;
      const replication = (await r.info('replication')) as string;
      if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) {
        return `replica ${port} not in sync`;
      }
      return '';
    });
    if (state !== '') return state;
  }
  return '';
}

interface NodeLine {
  readonly id: string;
  readonly port: number;
  readonly master: boolean;
  readonly failed: boolean;
  readonly masterId: string;
  readonly slots: Array<[number, number]>;
}

/** The lines of CLUSTER NODES: `<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot>…`. */
function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.trim().split(' ');
      return {
        id,
        port: Number(address.slice(address.lastIndexOf(':') + 1, address.indexOf('@'))),
        master: flags.split(',').includes('master'),
        failed: flags.split(',').some((f) => f === 'fail' || f === 'fail?'),
        masterId,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [from, to] = s.split('-').map(Number);
            return [from, to ?? from] as [number, number];
          }),
      };
    });
}

/** Runs `use` with a connection of its own to the node on `port`. */
async function withNode<T>(port: number, use: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return await use(r);
  } finally {
    r.disconnect();
  }
}

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (code ${code}):\n${output}`));
    });
  });
}
