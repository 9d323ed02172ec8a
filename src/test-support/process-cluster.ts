import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { RedisAddress } from '../eventstore/redis-address.js';
import { CLI } from './cli-run.js';
import { within } from './time-limit.js';

const READY_TIMEOUT_MS = 30_000;
/** Output kept per process, for the messages of failed waits. */
const OUTPUT_CHARS = 20_000;
/**
 * What `serve` prints on stdout once it listens: its server's name (the demo's, or a module's), then its URL. Its
 * log lines, on stderr, begin with "mcpwire: ".
 */
const URL_LINE = /^(?!mcpwire: )[^\n]*?: (http:\/\/127\.0\.0\.1:(\d+))\/mcp/m;

/** How a process ended: its exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One `mcpwire serve` process of a ProcessCluster. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>`, where it serves `/mcp`; the same across restarts. */
  readonly url: string;
  readonly port: number;
  /** The pid of the current `node` process (the primary, with `--workers`); undefined while stopped. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Its stdout and stderr so far (the last 20,000 characters), across restarts. */
  output(): string;
}

/** Several `mcpwire serve` processes, each on its own port, for the proxy to spread requests over. */
export interface ProcessCluster {
  readonly processes: readonly ServeProcess[];
  /** The URLs of the processes that run now. */
  urls(): string[];
  /** Sends `signal` to process `i` and resolves with how it ended. Harmless when it is stopped. */
  kill(i: number, signal?: NodeJS.Signals): Promise<ExitStatus>;
  /** Kills process `i` if it runs (SIGKILL), then starts it again on the same port, resolved once it serves. */
  restart(i: number): Promise<void>;
  /** Kills every process (SIGKILL) and waits for them all. */
  stopAll(): Promise<void>;
}

export interface ProcessClusterOptions {
  /**
   * Passed as `--redis URL`, or `--redis-cluster NODES`; without it, only what needs no shared state works (e.g.
   * `--stateless --workers 2`).
   */
  redis?: RedisAddress;
  /** More `serve` options, e.g. `['--workers', '2']` or `['--json']`. */
  args?: readonly string[];
  /** More environment for every process (e.g. `NODE_OPTIONS`). */
  env?: NodeJS.ProcessEnv;
}

// The shell starts a watcher that SIGKILLs the server when the shell's stdin closes (when `kill` ends it,
// and also when the test process dies without cleaning up), then execs node in its own place: the child's
// pid is node's, and the watcher's `$$` too. The watcher keeps nothing of ours open but that stdin.
const WRAPPER = 'exec 3<&0 </dev/null; (read -r _ <&3; kill -9 $$) >/dev/null 2>&1 & exec 3<&-; exec "$@"';

/**
 * Starts `count` processes of `node dist/cli/main.js serve --port 0 [--redis URL | --redis-cluster NODES] [args]` and resolves once each
 * has printed its URL (it listens by then). No process outlives the test process, however that ends; still,
 * call `stopAll()` when the test is done. Rejects, having killed those it started, when one fails to start.
 */
export async function startProcessCluster(
  count: number,
  options: ProcessClusterOptions,
): Promise<ProcessCluster> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
  const args = ['serve', ...redisArgs(options.redis), ...(options.args ?? [])];
  const env = { ...process.env, ...options.env };
  const started = await Promise.allSettled(
    Array.from({ length: count }, () => ServeChild.start(args, env, 0)),
  );
  const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    throw failed.reason;
  }
  return {
    processes,
    urls: () => processes.filter((p) => p.running).map((p) => p.url),
    kill: (i, signal = 'SIGKILL') => at(processes, i).kill(signal),
    restart: (i) => at(processes, i).restart(),
    stopAll: async () => {
      await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    },
  };
}

function redisArgs(redis: RedisAddress | undefined): string[] {
  if (redis === undefined) return [];
  return typeof redis === 'string' ? ['--redis', redis] : ['--redis-cluster', redis.cluster.join(',')];
}

function at(processes: ServeChild[], i: number): ServeChild {
  const p = processes[i];
  if (p === undefined) throw new RangeError(`No process ${i}: the cluster has ${processes.length}`);
  return p;
}

class ServeChild implements ServeProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  private text = '';
  port = 0;

  private constructor(
    private readonly args: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async start(args: readonly string[], env: NodeJS.ProcessEnv, port: number): Promise<ServeChild> {
    const p = new ServeChild(args, env);
    await p.launch(port);
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  output(): string {
    return this.text;
  }

  kill(signal: NodeJS.Signals): Promise<ExitStatus> {
    this.child?.kill(signal);
    return this.exited;
  }

  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    await this.launch(this.port);
  }

  private async launch(port: number): Promise<void> {
    const child = spawn(
      'sh',
      ['-c', WRAPPER, 'sh', process.execPath, CLI, ...this.args, '--port', String(port)],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: this.env,
      },
    );
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        child.stdin!.end(); // the watcher goes too
        if (this.child === child) this.child = undefined;
        resolve({ code, signal });
      });
    });
    let fresh = '';
    const ready = new Promise<void>((resolve, reject) => {
      const collect = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.text = (this.text + text).slice(-OUTPUT_CHARS);
        fresh += text;
        const match = URL_LINE.exec(fresh);
        if (match !== null) {
          this.port = Number(match[2]);
          resolve();
        }
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.once('exit', (code, signal) =>
        reject(
          new Error(`mcpwire ${this.args.join(' ')} exited (${signal ?? `code ${code}`}) before serving`),
        ),
      );
    });
    try {
      await within(ready, READY_TIMEOUT_MS, `mcpwire ${this.args.join(' ')} to serve`);
    } catch (err) {
      await this.kill('SIGKILL');
      throw new Error(`${(err as Error).message}; it printed:\n${fresh}`, { cause: err });
    }
  }
}
