// A redis-server of the benchmarks' own (no persistence, on a free loopback port, killed with the process that
// started it), and the raw commands they send it: no client library, so that what is measured is mcpwire's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A shell runs redis-server and kills it when the shell's stdin closes: when stop() closes it, and also when this
// process dies without cleaning up. `exec` makes the server the shell's own pid, for the CPU readings.
const REDIS_WRAPPER =
  'exec 3<&0 </dev/null; (read -r _ <&3; kill -9 $$) >/dev/null 2>&1 & exec 3<&-; exec redis-server "$@"';

/** A redis-server on a free loopback port, without persistence, resolved once it answers PING. */
export async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-bench-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--loglevel',
    'warning',
  ];
  const child = spawn('sh', ['-c', REDIS_WRAPPER, 'sh', ...args], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) =>
    child.once('exit', () => {
      child.stdin.end();
      rmSync(dir, { recursive: true, force: true });
      resolve();
    }),
  );
  await waitFor(
    async () => (await redisCommand(port, 'PING').catch(() => '')).startsWith('+PONG') || undefined,
    5000,
    () => 'redis-server to answer PING',
  );
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/** Sends one inline command to Redis and resolves with its whole reply: one line, or a bulk string's lines. */
export function redisCommand(port, command) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
    let reply = '';
    socket.setTimeout(2000, () => socket.destroy(new Error(`no answer to ${command}`)));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk;
      const eol = reply.indexOf('\r\n');
      if (eol === -1) return;
      const bulk = reply[0] === '$' ? Number(reply.slice(1, eol)) : -1;
      if (bulk >= 0 && Buffer.byteLength(reply) < eol + 2 + bulk + 2) return;
      socket.end();
      resolve(reply);
    });
  });
}

/** Commands Redis has processed since it started (INFO stats), to count the commands each call costs. */
export async function redisCommands(port) {
  const info = await redisCommand(port, 'INFO stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value; rejects after `ms` with `what()`. */
export async function waitFor(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await sleep(20);
  }
}
