import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoServer } from '../demo/demo-server.js';
import type { RedisAddress } from '../eventstore/redis-address.js';
import { serveSkills } from '../extensions/skills/serve-skills.js';
import type { Bridge } from '../host/bridge-server.js';
import { loadServerModule } from '../host/server-module.js';
import type { BearerTokens } from '../http/bearer-tokens.js';
import { type HostOriginPolicy, isLoopbackAddress } from '../http/guards.js';
import { introspectionVerifier } from '../http/introspection-verifier.js';
import { writeJsonError } from '../http/json-error.js';
import { jwtVerifier } from '../http/jwt-verifier.js';
import { fromNode } from '../http/node-adapter.js';
import { ProtectedResource } from '../http/protected-resource.js';
import type { RateLimitOptions } from '../http/rate-limiter.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import type { ServeDeployment } from '../server/serve-deployment.js';
import type { Server } from '../server/server.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';
import type { EventLogger } from '../telemetry/log-sink.js';
import { retryAfterSeconds } from '../util/retry-after.js';
import { Handoff } from './handoff.js';
import { answerProbe, LIVENESS_PATH, READINESS_PATH, type Unready } from './probes.js';
import { requestStateKeysFromEnv } from './request-state-key.js';
import type { ServeOAuth } from './serve-auth.js';
import { bridgeChild, type ServeChild, type ServeCluster } from './serve-command.js';
import type { ServeLimits } from './serve-limits.js';
import { clusterKeys, joinCluster, sharedTasks } from './serve-redis.js';
import { type LogFormat, stderrLogger } from './stderr-logger.js';
import { watchModule } from './watch.js';
import { announces, asWorker, supervises, superviseWorkers } from './workers.js';

export interface ServeOptions {
  /** The module exporting the server to serve (see loadServerModule); without it and `child`, the demo server. */
  module?: string;
  /** A stdio server to serve (`serve -- CMD ARGS…`), bridged: see bridgeServer. */
  child?: ServeChild;
  /** A folder of skills (SEP-2640) to serve beside the server's own tools, read again when it changes. */
  skills?: string;
  /** Reload the module's server when a file of its folder changes (new workers, requests in flight finished). */
  watch: boolean;
  /** Serve on this process's stdin/stdout instead of HTTP. */
  stdio: boolean;
  host: string;
  port: number;
  stateless: boolean;
  json: boolean;
  /** Also serve the 2024-11-05 HTTP+SSE endpoints (/sse and /messages). */
  legacySse: boolean;
  /** Host names (with or without port) a non-loopback server answers to; checked against DNS rebinding. */
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Origins whose web pages may call the server (CORS); also let through the Origin check. */
  corsOrigins: string[];
  /**
   * Share sessions and streams through this Redis (`redis://host:port`, or a Redis Cluster: `{ cluster: nodes }`), so
   * that every process serving it (other hosts, or `workers`) can serve any request of any session. Without it,
   * sessions live in this process.
   */
  redis?: RedisAddress;
  /** Serve from this many processes sharing the port (node:cluster); more than 1 needs `redis` or `stateless`. */
  workers?: number;
  /** Take only OAuth access tokens from this authorization server, checked by introspection. */
  oauth?: ServeOAuth;
  /** Take only these tokens, given out by hand (`--token-env`); never with `oauth`. */
  tokens?: BearerTokens;
  /** Write events (sessions, requests, refusals) to stderr in this format; without it, only errors. */
  logFormat?: LogFormat;
  /** Bounds on each caller of the HTTP endpoint (`--rate-limit`, `--max-in-flight`). */
  rateLimit?: RateLimitOptions;
  /** Bounds on the HTTP endpoints themselves (`--max-body`, `--session-idle-timeout`, `--max-sessions`). */
  limits?: ServeLimits;
}

/** How long requests in flight may finish after Ctrl-C. */
const SHUTDOWN_DEADLINE_MS = 5_000;

const log = (line: string) => process.stderr.write(`mcpwire: ${line}\n`);

/**
 * Where the server's events and errors go: with `--log-format`, each through the logger (refusals only once: the
 * logger's `refused` line); else errors as they are, refusals included.
 */
function logging(options: ServeOptions): {
  logger: EventLogger | undefined;
  onerror: (err: Error) => void;
  /** The Server's own (its sessions' errors): only with a logger, where an operator asked for everything. */
  serverOptions: { logger?: EventLogger; onerror?: (err: Error) => void };
} {
  if (options.logFormat === undefined) {
    return { logger: undefined, onerror: (err) => log(err.message), serverOptions: {} };
  }
  const logger = stderrLogger(options.logFormat);
  const onerror = (err: Error) => {
    if (err.name !== 'HTTPRejectionError') logger.error({ event: 'error', name: err.name }, err.message);
  };
  return { logger, onerror, serverOptions: { logger, onerror } };
}

/** `mcpwire serve`: the module's server, or the demo, over HTTP (default) or stdio. Resolves with the exit code. */
export function serve(options: ServeOptions): Promise<number> {
  if (supervises(options.workers, options.watch)) {
    const { module } = options;
    const reloads =
      module === undefined
        ? undefined
        : (reload: () => void) =>
            watchModule(module, (file) => {
              log(`${file} changed: reloading ${module}`);
              reload();
            });
    return superviseWorkers(options.workers ?? 1, options, log, options.watch ? reloads : undefined);
  }
  return asWorker(options.stdio ? serveOnStdio(options) : serveHttp(options));
}

/** The server to serve and what to call it (the module's, made for `deployment`, or the demo), with `--skills`. */
async function serverFor(
  options: ServeOptions,
  deployment: ServeDeployment,
  cluster?: ServeCluster,
): Promise<Served> {
  const made = await madeServer(options, deployment, cluster);
  if (options.skills !== undefined) {
    const served = await serveSkills(made.server, options.skills, (w) =>
      log(`skills: ${w.path}: ${w.message}`),
    );
    served.watch();
    log(`serving ${served.skills.length} skill(s) from ${options.skills}`);
  }
  return made;
}

/** The server to serve, what to call it, and for a bridged command, its children. */
interface Served {
  server: Server;
  label: string;
  bridge?: Bridge;
}

async function madeServer(
  options: ServeOptions,
  deployment: ServeDeployment,
  cluster: ServeCluster | undefined,
): Promise<Served> {
  if (options.child !== undefined) {
    const { bridge, label } = await bridgeChild(options.child, deployment, log, cluster);
    return { server: bridge.server, label, bridge };
  }
  if (options.module === undefined) {
    const { taskStore, ...serverOptions } = deployment;
    const tasks = taskStore === undefined ? undefined : { store: taskStore };
    return { server: createDemoServer({ ...serverOptions, tasks }), label: 'mcpwire demo server' };
  }
  const { server, source } = await loadServerModule(options.module, deployment);
  const label = `${server.info.name} (${options.module})`;
  if (source === 'instance') {
    // A Server made before serve ran seals with a key of its own; every process behind the endpoint must share one.
    if (deployment.requestStateKeys !== undefined) server.requestStates.setKeys(deployment.requestStateKeys);
    if (deployment.logger !== undefined) {
      log(
        `warning: ${options.module} exports a Server made without serve's logger, so --log-format shows its ` +
          'errors but not its sessions and requests: export a function that passes on what it is given',
      );
    }
  }
  if (
    deployment.taskStore !== undefined &&
    server.tasks !== undefined &&
    server.tasks.store !== deployment.taskStore
  ) {
    log(
      `warning: ${label} keeps its tasks in a store of its own, so only the process that started a task ` +
        'answers for it: export a function that gives its taskStore argument as tasks.store',
    );
  }
  return { server, label };
}

/** Both eras on stdio, the first message choosing; ends when stdin does, or on a signal. */
async function serveOnStdio(options: ServeOptions): Promise<number> {
  const { onerror, serverOptions } = logging(options);
  const { server, label, bridge } = await serverFor(options, {
    requestStateKeys: requestStateKeysFromEnv(),
    ...serverOptions,
  });
  const service = serveStdio(server, {
    onerror,
    rateLimit: options.rateLimit,
    maxLineBytes: options.limits?.maxBodyBytes,
  });
  log(`serving ${options.module ?? (bridge === undefined ? 'the demo server' : label)} on stdio`);
  return new Promise((resolve) => {
    // Its end is the client's: the children of a bridge go with it.
    service.ended.then(() => (bridge?.close() ?? Promise.resolve()).finally(() => resolve(0)));
    const stop = () => {
      service
        .close()
        .then(() => Promise.all([server.close(), bridge?.close()]))
        .finally(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Whether a server bound to `host` is reached only from this machine. */
function loopbackOnly(host: string): boolean {
  return isLoopbackAddress(host) || host === 'localhost';
}

/**
 * The Host/Origin policy for a bind address: on loopback, the handlers' own default (loopback names
 * only); elsewhere, the names given, or none when none are (the operator was warned).
 */
function rebindingPolicy(options: ServeOptions): HostOriginPolicy | false | undefined {
  if (options.allowedHosts.length > 0 || options.allowedOrigins.length > 0) {
    return {
      allowedHosts: options.allowedHosts.length > 0 ? options.allowedHosts : undefined,
      allowedOrigins: options.allowedOrigins.length > 0 ? options.allowedOrigins : undefined,
    };
  }
  if (loopbackOnly(options.host)) return undefined;
  log(
    `warning: bound to ${options.host} with no --allowed-host: Host and Origin are not checked, so pages a browser ` +
      'loads elsewhere could reach this server; list the names clients use with --allowed-host',
  );
  return false;
}

async function serveHttp(options: ServeOptions): Promise<number> {
  const dnsRebindingProtection = rebindingPolicy(options);
  const { onerror, serverOptions } = logging(options);
  const envKeys = requestStateKeysFromEnv();
  const cluster =
    options.redis === undefined ? undefined : await joinCluster(options.redis, envKeys !== undefined, log);
  const requestStateKeys = envKeys ?? (cluster === undefined ? undefined : await clusterKeys(cluster, log));
  // Tasks in memory by default (the demo's own store); with Redis, shared, so any process serves any task.
  const taskStore = options.redis === undefined ? undefined : await sharedTasks(options.redis, log);
  // An isolated session's child finds its session through the handler, which is made with the server, below.
  let handler: StreamableHTTPHandler | undefined;
  const { server, label, bridge } = await serverFor(
    options,
    { requestStateKeys, taskStore, ...serverOptions },
    cluster && { cluster, sessions: (id) => handler?.session(id) ?? Promise.resolve(undefined) },
  );
  // Listening first: the resource a token must be for names the port actually bound. No request can arrive
  // before the listener below is attached, in the same turn.
  const http = createServer();
  await listen(http, options.port, options.host);
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const resource =
    options.oauth === undefined ? undefined : protectedResource(options.oauth, `http://${host}:${port}/mcp`);
  const auth = resource ?? options.tokens;
  if (options.tokens !== undefined) log('taking only requests with one of the tokens of --token-env');
  else if (auth === undefined && !loopbackOnly(options.host)) {
    log(
      `warning: bound to ${options.host} with neither --token-env nor --oauth-issuer: whoever reaches it may call ` +
        'every tool of the server; say who may with one of them (or in a proxy in front)',
    );
  }
  const cors = options.corsOrigins.length > 0 ? { origins: options.corsOrigins } : undefined;
  const streamable = new StreamableHTTPHandler(server, {
    stateless: options.stateless,
    jsonResponse: options.json,
    dnsRebindingProtection,
    cors,
    cluster,
    auth,
    rateLimit: options.rateLimit,
    ...options.limits,
    onerror,
  });
  handler = streamable;
  const legacy = options.legacySse
    ? new LegacySSEHandler(server, {
        dnsRebindingProtection,
        cors,
        auth,
        maxBodyBytes: options.limits?.maxBodyBytes,
        maxSessions: options.limits?.maxSessions,
        onerror,
      })
    : undefined;

  const handoff = new Handoff(http);
  // Its child is down and starting again: no request can be served until it is up. (Shutting down, the server
  // takes no new connection: a probe then fails to connect, which tells the same.)
  const unready = (): Unready | undefined => {
    const down = bridge?.retryAfterMs();
    return down === undefined
      ? undefined
      : { reason: 'the server behind this bridge is restarting', retryAfterMs: down };
  };
  http.on('request', (req, res) => {
    const exchange = fromNode(req, res);
    if (exchange.path === '/mcp') {
      const down = unready();
      if (down !== undefined) {
        const seconds = retryAfterSeconds(down.retryAfterMs ?? 0);
        writeJsonError(exchange, 503, `Service Unavailable: ${down.reason}; retry in ${seconds} s`, {
          headers: { 'retry-after': String(seconds) },
        });
        return;
      }
      streamable.handle(exchange);
      return;
    }
    if (answerProbe(exchange, unready)) return;
    if (resource !== undefined && exchange.path === resource.metadataPath) {
      resource.node()(req, res);
      return;
    }
    (legacy ? legacy.handle(exchange) : Promise.resolve(false)).then((served) => {
      if (!served) {
        const paths = legacy ? '/mcp (Streamable HTTP), /sse and /messages (HTTP+SSE)' : '/mcp';
        writeJsonError(
          exchange,
          404,
          `Not Found: this server serves MCP at ${paths}, and answers probes at ${LIVENESS_PATH} and ${READINESS_PATH}`,
        );
      }
    });
  });
  const mode = [options.stateless && 'stateless', options.json && 'JSON responses']
    .filter(Boolean)
    .join(', ');
  if (announces()) {
    process.stdout.write(`${label}: http://${host}:${port}/mcp${mode ? ` (${mode})` : ''}\n`);
    if (legacy) process.stdout.write(`legacy HTTP+SSE: http://${host}:${port}/sse\n`);
  }

  return new Promise((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      log('shutting down: finishing requests in flight');
      http.close();
      Promise.all([streamable.close({ deadlineMs: SHUTDOWN_DEADLINE_MS }), legacy?.close()])
        .then(() => Promise.all([server.close(), cluster?.close(), taskStore?.close(), bridge?.close()]))
        .finally(() => {
          http.closeAllConnections();
          resolve(0);
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    handoff.onRetire(() => {
      log('replaced by a new worker: taking no new connections, letting the open ones go');
      handoff.retire().then(stop);
    });
  });
}

/** The server as a protected resource of `oauth.issuer`, its tokens introspected or checked against its keys. */
function protectedResource(oauth: ServeOAuth, bound: string): ProtectedResource {
  const resource = oauth.resource ?? bound;
  const { check } = oauth;
  const verifier =
    'jwks' in check
      ? jwtVerifier({ issuer: oauth.issuer, jwksUrl: check.jwks, resource })
      : introspectionVerifier({
          endpoint: check.introspection,
          clientId: check.clientId,
          clientSecret: check.clientSecret,
          resource,
        });
  const how = 'jwks' in check ? `JWTs checked against ${check.jwks}` : `checked at ${check.introspection}`;
  const dpop = oauth.dpop === undefined ? '' : ` (DPoP-bound ones: ${oauth.dpop})`;
  log(`taking OAuth access tokens${dpop} of ${oauth.issuer} for ${resource}, ${how}`);
  return new ProtectedResource({
    resource,
    authorizationServers: [oauth.issuer],
    requiredScopes: oauth.requiredScopes,
    verifier,
    dpop: oauth.dpop,
  });
}

function listen(http: HttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}
