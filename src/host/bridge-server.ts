import type { ClientSession } from '../client/client-session.js';
import type { StdioClientOptions } from '../client/stdio/stdio-client-connection.js';
import {
  type CreateMessageResult,
  type ElicitResult,
  Method,
  type ServerCapabilities,
} from '../protocol/types.js';
import type { ServerContext } from '../server/context.js';
import { type MethodHandler, REGISTRY_METHODS } from '../server/methods.js';
import { Server } from '../server/server.js';
import { ListKind } from '../server/server-events.js';
import type { ServerOptions } from '../server/server-options.js';
import { ChildPool } from './child-pool.js';
import { forward, relayToClient } from './forward.js';
import { HeldExchanges } from './held-exchange.js';

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

/** What `mcpwire serve -- CMD` is told. */
export interface BridgeOptions {
  /** The stdio server to run: command, arguments, environment, folder. */
  command: StdioClientOptions;
  /** How many processes of it serve the clients (each request goes to the least busy). Default 1. */
  children?: number;
  /** Options of the Server that faces the clients (logger, onerror, requestState keys: what `serve` gives). */
  serverOptions?: ServerOptions;
  /** Each line the child writes to stderr, and what the operator should hear of its life. */
  stderr(line: string): void;
  report(message: string): void;
  /** How long a child may take to answer its handshake. Default 30 s. */
  handshakeTimeoutMs?: number;
  /** The longest a forwarded request waits for the child's answer without progress. Default 1 hour. */
  requestTimeoutMs?: number;
  /** How long a request whose child asked the client something waits for the client's retry. Default 5 min. */
  holdMs?: number;
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
 * Starts the stdio server `options.command` (as many as `children`) and makes the `Server` that serves it to any
 * number of clients, in both eras, on any transport: the child's identity, instructions and capabilities are
 * announced as the server's (from its first handshake); tools, resources, templates, prompts and completion are
 * forwarded to it (see `forward`); its list changes and resource updates become the server's events, its log
 * messages go to every client at that client's level; `resources/subscribe` subscribes in the child once per URI.
 * Its sampling and elicitation requests go to the client whose request made them (see `relayToClient`): as
 * server-to-client requests on a 2025 session, as `input_required` rounds of a 2026 request (see `forward`).
 * Rejects when the child cannot be started or does not answer its handshake.
 */
export async function bridgeServer(options: BridgeOptions): Promise<Bridge> {
  const requestTimeoutMs = options.requestTimeoutMs ?? 60 * 60 * 1000;
  let server: Server | undefined;
  const subscribed = new Set<string>();
  const exchanges = new HeldExchanges(options.holdMs ?? 5 * 60 * 1000, 1000);
  const pool: ChildPool = new ChildPool(
    {
      command: options.command,
      client: {
        info: { name: 'mcpwire-bridge', version: '1' },
        options: {
          requestTimeoutMs,
          sampling: (params, ctx) =>
            relayToClient(pool.inFlightOf(ctx.session), Method.SamplingCreateMessage, {
              ...params,
            }) as Promise<CreateMessageResult>,
          elicitation: {
            form: (params, ctx) =>
              relayToClient(pool.inFlightOf(ctx.session), Method.ElicitationCreate, {
                ...params,
              }) as Promise<ElicitResult>,
            url: (params, ctx) =>
              relayToClient(pool.inFlightOf(ctx.session), Method.ElicitationCreate, {
                ...params,
              }) as Promise<ElicitResult>,
          },
          onerror: (err) => options.report(err.message),
        },
      },
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 30_000,
      backoffMs: 250,
      maxBackoffMs: 10_000,
      crashLoopExits: 5,
      stderr: options.stderr,
      report: options.report,
    },
    options.children ?? 1,
    (session) => {
      if (server !== undefined) relayEvents(session, server, subscribed, options.report);
    },
  );
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
  const shared: Record<string, MethodHandler> = {};
  for (const method of REGISTRY_METHODS) {
    if (capabilities[NEEDS[method]!] === undefined) continue;
    shared[method] = (_server, params, ctx) =>
      forward(pool, exchanges, method, params, ctx, requestTimeoutMs);
  }
  const legacy: Record<string, MethodHandler> = {};
  const ownSubscribe = made.legacyMethods[Method.ResourcesSubscribe];
  if (ownSubscribe !== undefined && capabilities.resources?.subscribe === true) {
    // The session keeps what it subscribed to (its updates reach it alone); the child is subscribed once per URI.
    legacy[Method.ResourcesSubscribe] = (s, params, ctx: ServerContext) => {
      const uri = (params as { uri: string }).uri;
      if (!subscribed.has(uri)) {
        subscribed.add(uri);
        subscribeEverywhere(pool, uri, options.report);
      }
      return ownSubscribe(s, params, ctx);
    };
  }
  made.answerWith(shared, legacy);
  for (const session of pool.sessions()) relayEvents(session, made, subscribed, options.report);
  return {
    server: made,
    retryAfterMs: () => pool.retryAfterMs(),
    close: () => {
      exchanges.releaseAll('the bridge is closing');
      return pool.close();
    },
  };
}

/** A child's notifications as the server's own events; its log level set so that every message comes. */
function relayEvents(
  session: ClientSession,
  server: Server,
  subscribed: ReadonlySet<string>,
  report: (message: string) => void,
): void {
  const changed = (kinds: number) => () => server.events.publish({ type: 'lists_changed', kinds });
  session.on('toolsChanged', changed(ListKind.Tools));
  session.on('resourcesChanged', changed(ListKind.Resources));
  session.on('promptsChanged', changed(ListKind.Prompts));
  session.on('resourceUpdated', (params) => server.resourceUpdated(params.uri));
  session.on('log', (params) => {
    server.log(params.level, params.data, params.logger);
  });
  const caps = session.serverCapabilities;
  const failed = (what: string) => (err: unknown) =>
    report(`${what} in the child server failed: ${(err as Error)?.message ?? String(err)}`);
  if (caps.logging !== undefined) session.setLoggingLevel('debug').catch(failed('logging/setLevel'));
  if (session.era === 'modern') {
    // A 2026 server tells of changes only on a listen stream.
    session
      .listen({
        toolsListChanged: caps.tools !== undefined,
        resourcesListChanged: caps.resources !== undefined,
        promptsListChanged: caps.prompts !== undefined,
        resourceSubscriptions: subscribed.size > 0 ? [...subscribed] : undefined,
      })
      .catch(failed('subscriptions/listen'));
  } else {
    // A restarted child forgot what it was subscribed to.
    for (const uri of subscribed) session.subscribeResource(uri).catch(failed(`resources/subscribe ${uri}`));
  }
}

function subscribeEverywhere(pool: ChildPool, uri: string, report: (message: string) => void): void {
  for (const session of pool.sessions()) {
    if (session.era !== 'legacy') continue;
    session
      .subscribeResource(uri)
      .catch((err) =>
        report(`resources/subscribe ${uri} in the child server failed: ${(err as Error).message}`),
      );
  }
}
