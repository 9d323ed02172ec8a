import type { StdioClientOptions } from '../client/stdio/stdio-client-connection.js';
import type { RedisCluster } from '../cluster/redis-cluster.js';
import { type Bridge, bridgeServer } from '../host/bridge-server.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { ServeDeployment } from '../server/serve-deployment.js';
import { UsageError } from './usage-error.js';

/** The stdio server `mcpwire serve -- CMD ARGS…` runs, and how many of it. */
export interface ServeChild {
  readonly command: StdioClientOptions;
  readonly children: number;
  /** Each 2025 session gets a process of its own, ended with the session. */
  readonly isolate: boolean;
  /** Its tools that clients never see (`--hide-tool`, see HiddenTools). */
  readonly hideTools: readonly string[];
}

/** At most this many children per process: each is a process of its own. */
const MAX_CHILDREN = 64;

interface Token {
  kind: string;
  index: number;
}

/** `serve`'s positionals split at `--`: the module before (if any), the command and its arguments after. */
export function splitCommand(
  positionals: readonly string[],
  tokens: readonly Token[],
): { modules: string[]; command: string[] | undefined } {
  const terminator = tokens.find((token) => token.kind === 'option-terminator');
  if (terminator === undefined) return { modules: [...positionals], command: undefined };
  const before = tokens.filter((t) => t.kind === 'positional' && t.index < terminator.index).length;
  return { modules: positionals.slice(0, before), command: positionals.slice(before) };
}

/**
 * The child of `serve -- CMD`, from the command and `--children`, `--env K=V`, `--cwd`, `--isolate`, `--hide-tool`;
 * UsageError when wrong.
 */
export function parseChild(
  command: string[] | undefined,
  flags: {
    children?: string;
    env: readonly string[];
    cwd?: string;
    isolate: boolean;
    hideTools: readonly string[];
  },
): ServeChild | undefined {
  const { children, env, cwd, isolate, hideTools } = flags;
  if (command === undefined) {
    const given = {
      '--children': children !== undefined,
      '--env': env.length > 0,
      '--cwd': cwd !== undefined,
      '--isolate': isolate,
      '--hide-tool': hideTools.length > 0,
    };
    const stray = Object.entries(given).find(([, set]) => set)?.[0];
    if (stray !== undefined)
      throw new UsageError(`${stray} is for the command after --: mcpwire serve ${stray} … -- CMD ARGS…`);
    return undefined;
  }
  const [program, ...args] = command;
  if (program === undefined || program === '') {
    throw new UsageError(
      'give the command of a stdio MCP server after --: mcpwire serve -- npx -y some-mcp-server',
    );
  }
  const n = children === undefined ? 1 : Number(children);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CHILDREN) {
    throw new UsageError(`--children must be a whole number from 1 to ${MAX_CHILDREN}, not "${children}"`);
  }
  const variables: Record<string, string> = {};
  for (const pair of env) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--env takes NAME=VALUE, not "${pair}"`);
    variables[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return {
    command: { command: program, args, env: variables, cwd },
    children: n,
    isolate,
    hideTools: checkedToolPatterns(hideTools),
  };
}

/** `--hide-tool` patterns: a tool's name, `*` standing for any run of characters; none empty. */
export function checkedToolPatterns(patterns: readonly string[]): readonly string[] {
  const empty = patterns.find((p) => p.trim() === '');
  if (empty !== undefined)
    throw new UsageError(
      '--hide-tool takes the name of a tool, or a pattern such as delete_*, not an empty one',
    );
  return patterns;
}

/** The cluster `serve --redis` joins, and where its HTTP handler finds a session by id (for `--isolate`). */
export interface ServeCluster {
  readonly cluster: RedisCluster;
  sessions(id: string): Promise<ServerSession | undefined>;
}

/**
 * The stdio server `child` says, started and served through a bridge (see bridgeServer), and what to call it; its
 * stderr and life go to `log`, or with `--log-format` to the deployment's logger as `child.stderr` and `child`
 * events, like the server's own.
 */
export async function bridgeChild(
  child: ServeChild,
  deployment: ServeDeployment,
  log: (line: string) => void,
  cluster?: ServeCluster,
): Promise<{ bridge: Bridge; label: string }> {
  const { command } = child.command;
  // Tasks are the child's own business: the bridge relays no task store.
  const { taskStore: _taskStore, ...serverOptions } = deployment;
  const logger = deployment.logger;
  const bridge = await bridgeServer({
    upstream: { command: child.command },
    children: child.children,
    isolate: child.isolate,
    hideTools: child.hideTools,
    cluster: cluster?.cluster,
    sessions: cluster?.sessions,
    serverOptions,
    stderr:
      logger === undefined
        ? (line) => log(`[${command}] ${line}`)
        : (line) => logger.info({ event: 'child.stderr', command }, line),
    report: logger === undefined ? log : (message) => logger.warn({ event: 'child', command }, message),
  });
  const label = `${bridge.server.info.name} (${[command, ...(child.command.args ?? [])].join(' ')})`;
  return { bridge, label };
}
