import cluster, { type Worker } from 'node:cluster';
import { type AddressInfo, createServer } from 'node:net';
import { RETIRE_MESSAGE } from './handoff.js';
import { drawRequestStateSecret, REQUEST_STATE_SECRET_ENV } from './request-state-key.js';
import { UsageError } from './usage-error.js';

/** More would be a typo rather than a deployment: each worker is a whole Node process. */
const MAX_WORKERS = 256;
/** The first restart of a crashed worker waits this long; each further crash in the window doubles it. */
const RESTART_BACKOFF_MS = 100;
const MAX_RESTART_BACKOFF_MS = 10_000;
/** Past this many crashes of one worker within the window, it is crash-looping: the service stops. */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;
/** After a stop signal, workers get this long (beyond their own 5 s for requests in flight) before SIGKILL. */
const FORCE_STOP_MS = 10_000;
/** Set in the environment of the one worker that prints the URL, so it is printed once, not per worker. */
const ANNOUNCE_ENV = 'MCPWIRE_WORKER_ANNOUNCES';

/** What `--workers` is checked against: the other `serve` options that decide whether workers can work. */
export interface WorkersContext {
  /** Whether `--redis` or `--redis-cluster` was given. */
  redis: boolean;
  stateless: boolean;
  stdio: boolean;
}

/**
 * Reads `--workers` (absent: 1). Several workers need `--redis`, so that any worker can serve any session,
 * unless there are no sessions (`--stateless`); they cannot share stdio. Throws UsageError saying why.
 */
export function parseWorkers(text: string | undefined, context: WorkersContext): number {
  if (text === undefined) return 1;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new UsageError(`--workers must be an integer from 1 to ${MAX_WORKERS}, not "${text}"`);
  }
  if (count === 1) return 1;
  if (context.stdio)
    throw new UsageError('--workers serves HTTP from several processes; it cannot serve --stdio');
  if (!context.redis && !context.stateless) {
    throw new UsageError(
      `--workers ${count} needs --redis URL: without it each worker keeps its own sessions, so a client ` +
        'whose request reaches another worker than the one it initialized with would find its session unknown. ' +
        'Give --redis redis://HOST:PORT (or --redis-cluster HOST:PORT,…) to share sessions between workers ' +
        '(or serve --stateless).',
    );
  }
  return count;
}

/**
 * Whether this process is the one that supervises workers (and serves nothing itself): with several, or with
 * one that `--watch` replaces when the module changes.
 */
export function supervises(workers: number | undefined, watch: boolean): boolean {
  return cluster.isPrimary && ((workers ?? 1) > 1 || watch);
}

/** Whether this process prints the server's URL: a lone server does, and of the workers only the first. */
export function announces(): boolean {
  return cluster.isPrimary || process.env[ANNOUNCE_ENV] === '1';
}

/**
 * Runs one worker's `serving` (a no-op wrapper outside a worker). A worker ignores repeated stop signals:
 * Ctrl-C reaches it both from the terminal and through the primary, and the second must not cut short the
 * graceful shutdown the first began (the primary decides when to force). Once served (or failed), the worker
 * lets go of its channel to the primary, which would otherwise keep it alive.
 */
export async function asWorker(serving: Promise<number>): Promise<number> {
  if (!cluster.isWorker) return serving;
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  try {
    return await serving;
  } finally {
    cluster.worker?.disconnect();
  }
}

/**
 * For `--port 0`, picks the port once, in the primary, and has every worker told it: node:cluster would
 * otherwise pick a new one whenever every worker had died, and the service must not move. The last
 * `--port` on the command line is the one read.
 */
async function pinPort(host: string): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  cluster.setupPrimary({ args: [...process.argv.slice(2), '--port', String(port)] });
}

/**
 * `mcpwire serve --workers N` in the primary: forks N workers (each runs the same command line and serves the
 * same port, which node:cluster shares) and resolves with the exit code once they have all exited.
 *
 * Promises: a worker that dies unexpectedly is restarted after a backoff (100 ms, doubling with each crash of
 * that worker within a minute, at most 10 s); past 5 crashes in a minute, or when a worker dies before any
 * worker has served (start-up failed, e.g. the port is taken), every worker is stopped and the result is 1.
 * SIGINT or SIGTERM is forwarded to every worker for a graceful shutdown (result 0); a second signal, or
 * 10 s more than the workers' own deadline, kills them. A replacement serves the port its predecessors did.
 * Each worker that starts serving, each crash and each restart is logged with `log`.
 *
 * `reloads`, when given, is handed a function that replaces every worker by a new one (a new process loads
 * the code anew): each new worker serves before the one it replaces is told to retire (it hands its connections
 * over, see Handoff, and requests in flight finish), and one that ends before serving leaves the old one serving. What it returns is called once every
 * worker has exited (to stop what calls for reloads).
 */
export async function superviseWorkers(
  count: number,
  listen: { host: string; port: number; redis?: unknown },
  log: (line: string) => void,
  reloads?: (reload: () => void) => () => void,
): Promise<number> {
  if (listen.port === 0) await pinPort(listen.host);
  return new Promise((resolve) => {
    const live = new Set<Worker>();
    /** The worker serving each slot; a replacement takes its place once it serves. */
    const serving: (Worker | undefined)[] = [];
    /** Workers stopped because a replacement serves: their exit is no crash. */
    const retiring = new Set<Worker>();
    const crashes: number[][] = Array.from({ length: count }, () => []);
    const restarts = new Set<NodeJS.Timeout>();
    let served = false;
    /** Whether the worker told to print the URL has served: until then, the first slot's replacements are told. */
    let announced = false;
    let stopping = false;
    let result = 0;
    let forceTimer: NodeJS.Timeout | undefined;
    let stopReloads: (() => void) | undefined;

    // Every worker seals requestState with the same key, so a retry may reach any of them; with Redis, every
    // worker of every host takes the cluster's from there.
    const secret = process.env[REQUEST_STATE_SECRET_ENV] || (listen.redis ? '' : drawRequestStateSecret());
    const shared = { [REQUEST_STATE_SECRET_ENV]: secret };
    const fork = (slot: number, replacing?: Worker) => {
      const announce = slot === 0 && !announced;
      const worker = cluster.fork(announce ? { ...shared, [ANNOUNCE_ENV]: '1' } : shared);
      live.add(worker);
      const pid = worker.process.pid;
      let listening = false;
      worker.once('listening', () => {
        listening = true;
        log(`worker ${slot + 1} of ${count} serving (pid ${pid})`);
        served = true;
        if (announce) announced = true;
        serving[slot] = worker;
        if (replacing !== undefined && live.has(replacing)) {
          retiring.add(replacing);
          replacing.send(RETIRE_MESSAGE);
        }
      });
      worker.once('exit', (code, signal) => {
        live.delete(worker);
        if (stopping) {
          if (live.size === 0) finish();
          return;
        }
        if (retiring.delete(worker)) return;
        const how = signal ? `killed by ${signal}` : `exit code ${code}`;
        if (replacing !== undefined && !listening) {
          log(
            `the new worker ${slot + 1} (pid ${pid}) ended before serving (${how}); the previous one still serves`,
          );
          return;
        }
        if (!served) {
          log(`worker ${slot + 1} (pid ${pid}) failed before serving (${how}); stopping`);
          stop(1);
          return;
        }
        const now = Date.now();
        const recent = crashes[slot].filter((at) => now - at < CRASH_WINDOW_MS);
        recent.push(now);
        crashes[slot] = recent;
        if (recent.length > MAX_CRASHES) {
          log(
            `worker ${slot + 1} (pid ${pid}) ended ${recent.length} times within a minute (${how}); stopping`,
          );
          stop(1);
          return;
        }
        const delay = Math.min(RESTART_BACKOFF_MS * 2 ** (recent.length - 1), MAX_RESTART_BACKOFF_MS);
        log(`worker ${slot + 1} (pid ${pid}) ended unexpectedly (${how}); restarting it in ${delay} ms`);
        const timer = setTimeout(() => {
          restarts.delete(timer);
          fork(slot);
        }, delay);
        restarts.add(timer);
      });
    };

    const stop = (code: number, signal: NodeJS.Signals = 'SIGTERM') => {
      result = Math.max(result, code);
      if (stopping) return;
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      restarts.clear();
      for (const worker of live) worker.process.kill(signal);
      forceTimer = setTimeout(() => kill('they did not stop in time'), FORCE_STOP_MS);
      if (live.size === 0) finish();
    };

    const kill = (why: string) => {
      if (live.size === 0) return;
      log(`killing ${live.size} worker(s): ${why}`);
      for (const worker of live) worker.process.kill('SIGKILL');
    };

    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        kill(`${signal} received again`);
        return;
      }
      log(`${signal}: stopping ${live.size} worker(s)`);
      stop(0, signal);
    };

    const finish = () => {
      clearTimeout(forceTimer);
      stopReloads?.();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(result);
    };

    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    for (let slot = 0; slot < count; slot++) fork(slot);
    stopReloads = reloads?.(() => {
      if (stopping) return;
      for (let slot = 0; slot < count; slot++) fork(slot, serving[slot]);
    });
  });
}
