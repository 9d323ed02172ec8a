import type { ClientContext, ClientSession } from '../client/client-session.js';
import { connectStdio } from '../client/negotiation/connect-stdio.js';
import { connectUrl } from '../client/negotiation/connect-url.js';
import type { StdioClientOptions } from '../client/stdio/stdio-client-connection.js';
import type { ClusterMessaging } from '../cluster/direct-messages.js';
import {
  type CreateMessageResult,
  type ElicitResult,
  type ListRootsResult,
  Method,
  type ServerCapabilities,
} from '../protocol/types.js';
import type { ServerContext } from '../server/context.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import { type MethodHandler, REGISTRY_METHODS } from '../server/methods.js';
import { Server } from '../server/server.js';
import type { ServerOptions } from '../server/server-options.js';
import { everyClient, relayEvents, subscribeIn } from './child-events.js';
import { ChildPool, type InFlight } from './child-pool.js';
import { ClusterIsolation } from './cluster-isolation.js';
import { ClusterRounds } from './cluster-rounds.js';
import { type Elsewhere, forward, relayToClient } from './forward.js';
import { HeldExchanges } from './held-exchange.js';
import { HiddenTools } from './hidden-tools.js';
import { IsolatedChildren, type Isolation, type Owners } from './isolated-children.js';
import type { ChildSettings } from './upstream.js';

/** Which capability each method the bridge forwards needs of the child. */
const NEEDS: Readonly<Record<string, keyof ServerCapabilities>> = {
  [Method.ToolsList]: 'tools',
  [Method.ToolsCall]: 'tools',
  [Method.ResourcesList]: 'resources',
  [Method.ResourcesTemplatesList]: 'resources',
  [Method.ResourcesRead]: 'resources',
  [Method.PromptsList]: 'prompts',
  [Method.PromptsGet]: 'prompts',
  [Method.CompletionComplete]: 'completions',
};

/** A remote server a bridge serves over stdio (`mcpwire connect URL`), as `connectUrl` reaches it. */
export interface RemoteServer {
  url: string;
  transport?: 'auto' | 'http' | 'sse';
  headers?: Record<string, string>;
  /** The fetch its requests go through (an OAuthClient's, to sign them). */
  fetch?: typeof globalThis.fetch;
}

/** What a bridge serves (`mcpwire serve -- CMD`, `mcpwire connect URL`), and how. */
export interface BridgeOptions {
  /** The server behind the bridge: a stdio server to run (command, arguments, environment, folder), or a remote one. */
  upstream: { command: StdioClientOptions } | { remote: RemoteServer };
  /** How many processes of it serve the clients (each request goes to the least busy). Default 1. */
  children?: number;
  /** Options of the Server that faces the clients (logger, onerror, requestState keys: what `serve` gives). */
  serverOptions?: ServerOptions;
  /** Each line a stdio child writes to stderr; and what the operator should hear of the upstream's life. */
  stderr?(line: string): void;
  report(message: string): void;
  /** How long a child may take to answer its handshake. Default 30 s. */
  handshakeTimeoutMs?: number;
  /** The longest a forwarded request waits for the child's answer without progress. Default 1 hour. */
  requestTimeoutMs?: number;
  /** How long a request whose child asked the client something waits for the client's retry. Default 5 min. */
  holdMs?: number;
  /**
   * Give each 2025 session a child of its own, ended with the session, at most `maxIsolated` at once (default
   * 100); 2026 requests, which have no session, go to the shared children.
   */
  isolate?: boolean;
  maxIsolated?: number;
  /**
   * The cluster this process serves in (`serve --redis`, `--workers`): a 2026 client's retry of a request whose
   * child asked it something may reach any process, and is served by the one holding the request (see
   * ClusterRounds). With `isolate`, a session's child lives in one process, and `sessions` finds the sessions there
   * (see ClusterIsolation).
   */
  cluster?: ClusterMessaging;
  /** The 2025 session of an id as this process holds it: the HTTP handler's `session`. Needed with a cluster and `isolate`. */
  sessions?: (id: string) => Promise<ServerSession | undefined>;
  /** Tools of the upstream its clients never see: names, `*` standing for any run of characters (see HiddenTools). */
  hideTools?: readonly string[];
}

/** A stdio server served as a `Server`, ready for any transport; `close` ends its children. */
export interface Bridge {
  readonly server: Server;
  /** Undefined while a child is up; else how long until one is started again (an HTTP front answers 503 so). */
  retryAfterMs(): number | undefined;
  close(): Promise<void>;
}

/** The capabilities the bridge announces: the child's, for what it forwards; tasks and extensions are not relayed. */
function bridged(child: ServerCapabilities): ServerCapabilities {
  const { tasks: _tasks, extensions: _extensions, experimental: _experimental, ...relayed } = child;
  return relayed;
}

/**
 * Reaches the server behind the bridge: runs the stdio server `upstream.command` (as many as `children`), or connects
 * to `upstream.remote`, and makes the `Server` that serves it to any
 * number of clients, in both eras, on any transport: the child's identity, instructions and capabilities are
 * announced as the server's (from its first handshake); tools, resources, templates, prompts and completion are
 * forwarded to it (see `forward`); its list changes and resource updates become the server's events, its log
 * messages go with the request they were made during, or to every client (see `everyClient`);
 * `resources/subscribe` subscribes in the child once per URI.
 * Its sampling and elicitation requests go to the client whose request made them (see `relayToClient`): as
 * server-to-client requests on a 2025 session, as `input_required` rounds of a 2026 request (see `forward`).
 * With `isolate`, each 2025 session has a child of its own (see IsolatedChildren).
 * Rejects when the child cannot be started or does not answer its handshake.
 */
export async function bridgeServer(options: BridgeOptions): Promise<Bridge> {
  const requestTimeoutMs = options.requestTimeoutMs ?? 60 * 60 * 1000;
  const { cluster } = options;
  if (options.isolate && cluster !== undefined && options.sessions === undefined) {
    throw new Error('isolate in a cluster needs `sessions`, where the sessions of this process are found');
  }
  const rounds = cluster === undefined ? undefined : new ClusterRounds(cluster, options.report);
  const exchanges = new HeldExchanges(
    options.holdMs ?? 5 * 60 * 1000,
    1000,
    rounds && { nodeId: cluster!.nodeId, remote: rounds },
  );
  rounds?.serve(exchanges);
  const inFlight: InFlight = new Map();
  const owners: Owners = new WeakMap();
  const settings = childSettings(options, inFlight, owners, requestTimeoutMs);
  const subscribed = new Set<string>();
  let server: Server | undefined;
  const pool = new ChildPool(settings, options.children ?? 1, inFlight, (child) => {
    if (server !== undefined) relayEvents(child, everyClient(server, inFlight), subscribed, options.report);
  });
  let first: ClientSession;
  try {
    first = await pool.start();
  } catch (err) {
    await pool.close();
    throw err;
  }
  const capabilities = bridged(first.serverCapabilities);
  server = new Server(first.serverInfo, {
    ...options.serverOptions,
    instructions: first.instructions,
    logging: capabilities.logging !== undefined,
    capabilities,
  });
  const made = server;
  const isolated = options.isolate
    ? isolation(options, settings, inFlight, owners, { cluster, rounds, exchanges, requestTimeoutMs })
    : undefined;
  const poolFor = (ctx: ServerContext): ChildPool | Promise<ChildPool | Elsewhere> =>
    isolated === undefined || ctx.session === undefined ? pool : isolated.homeOf(ctx.session);
  const shared: Record<string, MethodHandler> = {};
  for (const method of REGISTRY_METHODS) {
    if (capabilities[NEEDS[method]!] === undefined) continue;
    shared[method] = (_server, params, ctx) =>
      forward(poolFor(ctx), exchanges, method, params, ctx, requestTimeoutMs);
  }
  if (options.hideTools !== undefined && options.hideTools.length > 0)
    new HiddenTools(options.hideTools).hideIn(shared);
  const legacy: Record<string, MethodHandler> = {};
  const ownSubscribe = made.legacyMethods[Method.ResourcesSubscribe];
  if (ownSubscribe !== undefined && capabilities.resources?.subscribe === true) {
    /** The shared children are asked to tell of updates once per URI, whoever wants them. */
    const watch = (uris: readonly string[]) => {
      const fresh = uris.filter((uri) => !subscribed.has(uri));
      if (fresh.length === 0) return;
      for (const uri of fresh) subscribed.add(uri);
      for (const child of pool.sessions()) subscribeIn(child, fresh, subscribed, options.report);
    };
    made.events.watched = watch;
    // The session keeps what it subscribed to (its updates reach it alone).
    legacy[Method.ResourcesSubscribe] = async (s, params, ctx: ServerContext) => {
      const uri = (params as { uri: string }).uri;
      const owner = await poolFor(ctx);
      if (owner === pool) watch([uri]);
      else isolated!.subscribe(ctx.session!, uri);
      return ownSubscribe(s, params, ctx);
    };
  }
  made.answerWith(shared, legacy);
  for (const child of pool.sessions())
    relayEvents(child, everyClient(made, inFlight), subscribed, options.report);
  return {
    server: made,
    retryAfterMs: () => pool.retryAfterMs(),
    close: async () => {
      exchanges.releaseAll('the bridge is closing');
      await Promise.all([pool.close(), isolated?.close()]);
    },
  };
}

/** Each 2025 session's own child: in this process, or in the one of the cluster holding it. */
function isolation(
  options: BridgeOptions,
  settings: ChildSettings,
  inFlight: InFlight,
  owners: Owners,
  shared: {
    cluster?: ClusterMessaging;
    rounds?: ClusterRounds;
    exchanges: HeldExchanges;
    requestTimeoutMs: number;
  },
): Isolation {
  const max = options.maxIsolated ?? 100;
  const { cluster, rounds, exchanges } = shared;
  if (cluster === undefined || rounds === undefined)
    return new IsolatedChildren(settings, max, inFlight, owners);
  const made = new ClusterIsolation(
    cluster,
    rounds,
    exchanges,
    options.sessions!,
    (home) => new IsolatedChildren(settings, max, inFlight, owners, home),
    shared.requestTimeoutMs,
    options.report,
  );
  rounds.serve(exchanges, made);
  return made;
}

/** How every upstream of the bridge is reached and watched, and how its requests to a client are relayed. */
function childSettings(
  options: BridgeOptions,
  inFlight: InFlight,
  owners: Owners,
  requestTimeoutMs: number,
): ChildSettings {
  const relay = (method: string) => (params: object, ctx: ClientContext) =>
    relayToClient(inFlight.get(ctx.session), method, { ...params }, owners.get(ctx.session)?.session);
  const elicit = relay(Method.ElicitationCreate) as (
    params: object,
    ctx: ClientContext,
  ) => Promise<ElicitResult>;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? 30_000;
  return {
    ...reach(options, handshakeTimeoutMs),
    client: {
      info: { name: 'mcpwire-bridge', version: '1' },
      options: {
        requestTimeoutMs,
        sampling: relay(Method.SamplingCreateMessage) as (
          params: object,
          ctx: ClientContext,
        ) => Promise<CreateMessageResult>,
        elicitation: { form: elicit, url: elicit },
        roots: async (ctx) => ((await relay(Method.RootsList)({}, ctx)) as unknown as ListRootsResult).roots,
        onerror: (err) => options.report(err.message),
      },
    },
    handshakeTimeoutMs,
    backoffMs: 250,
    maxBackoffMs: 10_000,
    crashLoopExits: 5,
    report: options.report,
  };
}

/** What the upstream is called, and how a session with it is opened. */
function reach(options: BridgeOptions, handshakeTimeoutMs: number): Pick<ChildSettings, 'label' | 'connect'> {
  const { upstream } = options;
  if ('remote' in upstream) {
    const { url, transport, headers, fetch } = upstream.remote;
    return {
      label: url,
      connect: (client, signal) => connectUrl(client, url, { transport, headers, fetch, signal }),
    };
  }
  const { command } = upstream;
  const onStderr = stderrLines(options.stderr ?? (() => {}));
  // Each answer of the handshake may take half its bound (the client's own request timeout is the forwarded
  // requests' hour): a child that answers neither server/discover nor the ping behind it is taken for a legacy one
  // with time left to answer initialize.
  const timeoutMs = Math.floor(handshakeTimeoutMs / 2);
  return {
    label: command.command,
    connect: (client, signal) =>
      connectStdio(client, { ...command, stderr: 'pipe', onStderr }, { signal, timeoutMs }),
  };
}

/** A child's stderr, a line at a time (a line split over chunks is joined; an unfinished one waits, up to 4 KiB). */
function stderrLines(line: (text: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    if (partial.length > 4096) {
      lines.push(partial);
      partial = '';
    }
    for (const text of lines) if (text !== '') line(text.replace(/\r$/, ''));
  };
}
