// The bench server (../server.mjs) started by the diagnostic tools, with the harness's client pointed at it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { endpoint, McpSession } from './mcp.mjs';
import { pool } from './stats.mjs';

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
  const stdio = ['ignore', 'pipe', 'inherit'];
  const server =
    pin === undefined
      ? spawn(process.execPath, args, { cwd, stdio })
      : spawn('taskset', ['-c', String(pin), process.execPath, ...args], { cwd, stdio });
  await listening(server);
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

/** Resolves once the bench server says it listens (it may take a while on a busy machine); rejects if it exits. */
function listening(server) {
  return new Promise((resolve, reject) => {
    let said = '';
    server.stdout.on('data', (chunk) => {
      said += chunk;
      if (said.includes(' on http://')) resolve();
    });
    server.once('exit', (code, signal) =>
      reject(new Error(`the bench server exited (${code ?? signal}) before it listened: ${said}`)),
    );
  });
}
