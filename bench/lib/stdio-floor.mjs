// The floor under every bridge: the stdio child called directly, as a desktop client starting it would, with no
// bridge and no HTTP. JSON-RPC lines written to its stdin by hand (no client library's cost either), `inflight`
// calls kept in flight for warmup+duration seconds; only calls that start after the warmup and end before the
// end count.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { meteredWindow, round, summarize } from './stats.mjs';

/**
 * Runs `command args…` (a 2025 stdio MCP server with an `echo` tool) and calls it: resolves with calls/s, the
 * latency median and the child's CPU per call (µs), and stops it.
 */
export async function stdioFloor(command, args, { duration, warmup, inflight }) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    const answered = waiting.get(message.id);
    if (answered === undefined) return;
    waiting.delete(message.id);
    answered(message);
  });
  let nextId = 0;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-bench', version: '0.1.0' },
    });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const window = meteredWindow(child.pid, warmup, duration);
    const { tMeasure, tEnd } = window;
    const latencies = [];
    const caller = async () => {
      for (let start = performance.now(); start < tEnd; start = performance.now()) {
        await request('tools/call', { name: 'echo', arguments: { text: 'hello' } });
        const end = performance.now();
        if (start >= tMeasure && end <= tEnd) latencies.push(end - start);
      }
    };
    await Promise.all(Array.from({ length: inflight }, caller));
    const cpu = window.cpu();
    const callsPerS = latencies.length / duration;
    return {
      calls_per_s: round(callsPerS),
      p50_us: round(summarize(latencies).p50_ms * 1000, 0),
      child_cpu_us_per_call: cpu?.server_cpu_pct ? round((cpu.server_cpu_pct * 1e4) / callsPerS) : null,
    };
  } finally {
    child.kill('SIGTERM');
  }
}
