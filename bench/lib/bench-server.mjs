// The bench server (../server.mjs) started by the diagnostic tools, with the harness's client pointed at it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { endpoint, McpSession } from './mcp.mjs';
import { pool, sleep } from './stats.mjs';

/**
 * Starts the bench server on 127.0.0.1:`port` with `nodeFlags` for node and `serverFlags` for the server
 * (`pin`: the cpu to pin it to, as compare.mjs does), waits until it listens, and answers it with an endpoint
 * and `open(n)`, which opens n idle sessions 32 at a time. `stop()` ends both.
 */
export async function startBenchServer({ port, nodeFlags = [], serverFlags = [], pin, cwd }) {
  const args = [
    ...nodeFlags,
    fileURLToPath(new URL('../server.mjs', import.meta.url)),
    '--port',
    port,
    ...serverFlags,
  ];
  const server =
    pin === undefined
      ? spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] })
      : spawn('taskset', ['-c', String(pin), process.execPath, ...args], {
          cwd,
          stdio: ['ignore', 'ignore', 'inherit'],
        });
  await sleep(1000);
  const ep = endpoint(`http://127.0.0.1:${port}/mcp`, 33);
  const open = (n) =>
    pool(n, 32, async () => {
      const s = new McpSession(ep);
      await s.initialize();
      return s;
    });
  const stop = async () => {
    await ep.close();
    server.kill('SIGTERM');
  };
  return { server, ep, open, stop };
}
