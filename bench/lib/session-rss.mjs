// What a 2025 session costs in memory behind a bridge: the resident memory of the bridge and every process it
// started (children included: with a child per session, they are the cost), before and after `sessions`
// sessions are opened and have each made one call.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { endpoint, McpSession } from './mcp.mjs';
import { pool, readRss, round, sleep } from './stats.mjs';

/** The pids of `root` and of every process under it, from /proc. */
function tree(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent is the 4th field, after the command in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // Ended while being read.
    }
  }
  const out = [];
  for (let todo = [root]; todo.length > 0; ) {
    const pid = todo.pop();
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

function treeRssKb(root) {
  const pids = tree(root);
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += readRss(pid).rss_kb;
    } catch {
      // Ended while being read.
    }
  }
  return { kb, processes: pids.length };
}

/** Resolves once something answers HTTP at `url` (any status); rejects after `ms` or when `proc` exits. */
async function reachable(url, proc, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}) before it listened`);
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`nothing answered at ${url} within ${ms} ms`);
}

/**
 * Starts `command` (a shell command, `{port}` replaced), opens `sessions` 2025 sessions at /mcp, each making one
 * `echo` call, and resolves with the resident memory of the process tree before and after, per session, and
 * how many processes it had; then stops the tree.
 */
export async function sessionRss(command, { port, sessions }) {
  const proc = spawn('sh', ['-c', `exec ${command.replaceAll('{port}', String(port))}`], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const ep = endpoint(url, 8);
  try {
    await reachable(url, proc, 30_000);
    await sleep(1000);
    const before = treeRssKb(proc.pid);
    await pool(sessions, 4, async () => {
      const session = new McpSession(ep);
      await session.initialize();
      const r = await session.callTool('echo', { text: 'hello' });
      if (r.status !== 200 || r.response?.error) {
        throw new Error(`echo failed: HTTP ${r.status} ${JSON.stringify(r.response ?? '')}`);
      }
    });
    await sleep(1000);
    const after = treeRssKb(proc.pid);
    return {
      rss_before_mib: round(before.kb / 1024),
      rss_after_mib: round(after.kb / 1024),
      kib_per_session: round((after.kb - before.kb) / sessions, 0),
      processes: `${before.processes} → ${after.processes}`,
    };
  } finally {
    await ep.close();
    const pids = tree(proc.pid);
    proc.kill('SIGTERM');
    await sleep(500);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}
