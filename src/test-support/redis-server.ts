import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createRedisClient, type RedisClient, whenRedisReady } from '../eventstore/redis-client.js';
import { freePort } from './free-port.js';

/** A redis-server process of the tests' own, on 127.0.0.1. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Kills the server at once (SIGKILL, as a crash would) and waits for it to exit. Harmless when stopped. */
  stop(): Promise<void>;
  /** Stops the server if it runs, then starts a fresh one (empty: nothing is persisted) on the same port. */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 5000;

/**
 * Starts a redis-server on a free loopback port, with no persistence (`--save ''`, `--appendonly no`) and its
 * working files in a temporary folder, and resolves once it answers PING. Rejects with a message saying how to
 * install it when `redis-server` is not on PATH; `scripts/test.mjs` leaves out the test files that import this
 * module in that case, saying so, unless MCPWIRE_REQUIRE_REDIS=1 (as in CI). The server dies with the test
 * process, however that ends (see `launch`).
 */
export async function startRedisServer(): Promise<RedisServer> {
  const launched = await launchOnFreePort();
  const port = launched.port;
  let running: Running | undefined = launched.running;
  const stop = async () => {
    const current = running;
    running = undefined;
    if (current === undefined) return;
    current.child.stdin!.end();
    await current.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    restart: async () => {
      await stop();
      running = await launch(port);
    },
  };
}

/**
 * A redis-server of the test file's own and a ready client of it, both ended when the file's tests end (call it at
 * the top level of a test file).
 */
export async function redisForFile(): Promise<{ redis: RedisServer; client: RedisClient }> {
  const redis = await startRedisServer();
  const client = createRedisClient(redis.url);
  await whenRedisReady(client, READY_TIMEOUT_MS);
  after(async () => {
    await client.quit();
    await redis.stop();
  });
  return { redis, client };
}

/** A redis-server this module started. */
export interface Running {
  readonly child: ChildProcess;
  /** Resolves when the server has exited and its folder is gone. */
  readonly exited: Promise<void>;
}

// A shell runs redis-server and kills it (SIGKILL) when the shell's stdin closes: when `stop` closes it, and
// also when the test process dies without cleaning up, so no server outlives its tests. The shell exits with
// the server, so a server that fails to start is seen at once.
const WRAPPER =
  'exec 3<&0; redis-server "$@" </dev/null & pid=$!; ' +
  '(read -r _ <&3; kill -9 "$pid") >/dev/null 2>&1 & wait "$pid"';

/**
 * Starts redis-server on a port `freePort` picks (with the options `extra` gives, asked again on each attempt), and
 * picks again when another process bound the port first ("Address already in use"), up to three times.
 */
export async function launchOnFreePort(
  extra: () => Promise<readonly string[]> = async () => [],
): Promise<{ port: number; running: Running }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return { port, running: await launch(port, await extra()) };
    } catch (err) {
      if (attempt === 3 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

/**
 * Starts redis-server on `port` (with `extra` options, and the defaults of `startRedisServer`) and waits until it
 * answers; `stdin.end()` on the child kills it.
 */
export async function launch(port: number, extra: readonly string[] = []): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-redis-'));
  // biome-ignore format: one option per line
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', 'no',
    '--dir', dir,
    '--daemonize', 'no',
    '--loglevel', 'warning',
    ...extra,
  ];
  const child = spawn('sh', ['-c', WRAPPER, 'sh', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      child.stdin!.end(); // the watcher shell goes too
      rmSync(dir, { recursive: true, force: true });
      resolve();
    });
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => {
      reject(
        code === 127
          ? new Error(
              'redis-server is not on PATH, and the Redis tests need a real one. ' +
                'Install it (Debian: apt-get install -y redis-server); .ci/run installs it for CI.',
            )
          : new Error(`redis-server exited before it was ready (${signal ?? `code ${code}`}):\n${output}`),
      );
    });
  });
  failed.catch(() => {});
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await Promise.race([answersPing(port), failed]))) {
    if (Date.now() > deadline) {
      child.stdin!.end();
      await exited;
      throw new Error(
        `redis-server did not answer PING on port ${port} within ${READY_TIMEOUT_MS} ms:\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, exited };
}

/** Whether a Redis server on 127.0.0.1:`port` answers PING. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
