import type { JsonRpcPeer } from '../peer/jsonrpc-peer.js';
import { READ_ONLY_METHODS } from '../protocol/modern-types.js';
import { TaskMethod } from '../protocol/tasks.js';
import { Method, type ProgressNotificationParams, type ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { Client, RootsHandler } from './client.js';
import type { ClientContext } from './client-session.js';
import { fulfil } from './input-rounds.js';
import { answerServer } from './server-requests.js';
import type { EraWire, SessionEra } from './session-era.js';
import type { TaskSession } from './task-call.js';
import type { TaskFeed } from './task-inbox.js';
import type { ToolCatalog } from './tool-catalog.js';

/** Task requests a client may send again when the answer was lost: reading, and acks the server dedupes. */
const TASK_REQUESTS: ReadonlySet<string> = new Set([TaskMethod.Get, TaskMethod.Update, TaskMethod.Cancel]);

/** What a ClientSession is made of, as its era and its tasks reach it. */
export interface SessionParts {
  readonly peer: JsonRpcPeer;
  readonly client: Client;
  readonly catalog: ToolCatalog;
  /** This client's roots now. */
  roots: RootsHandler;
  /** The era spoken (after the handshake). */
  spoken(): SessionEra;
  capabilities(): ServerCapabilities;
  /** The context a Client handler gets for one input request of a 2026 round. */
  inputContext(key: string, method: string, signal: AbortSignal): ClientContext;
  /** Progress no pending request claims, until the returned function is called. */
  onProgress(listener: (params: ProgressNotificationParams) => void): () => void;
  /** Rejects as tools/call does when the server has no tools. */
  requireTools(): void;
}

/** How a session's era sends through its peer, answers the server and knows what may be sent twice. */
export function eraWire(parts: SessionParts): EraWire {
  const { peer, catalog } = parts;
  return {
    request: (method, params, options) => peer.request(method, params, options),
    issue: (method, params, options) => peer.issue(method, params, options),
    notify: (method, params) => peer.notify(method, params),
    report: (err) => peer.report(err),
    answer: async (method, params, ctx) => answerServer(parts.client, parts.roots, method, params, ctx),
    repeatable: (method, params) =>
      READ_ONLY_METHODS.has(method) ||
      TASK_REQUESTS.has(method) ||
      (method === Method.ToolsCall && typeof params?.name === 'string' && catalog.repeatable(params.name)),
    refreshTools: (options) => catalog.refresh(options),
  };
}

/** How a session's tool calls run as tasks: in its era, answered with its handlers, fed by its task feed. */
export function taskSession(parts: SessionParts, wire: EraWire): TaskSession {
  const { peer, client, catalog } = parts;
  /** What the server pushes of the tasks this session follows; made on the first one. */
  let feed: TaskFeed | undefined;
  return {
    era: (): Era => parts.spoken().name,
    capabilities: () => parts.capabilities(),
    limits: client.tasks,
    request: (method, params, options) => parts.spoken().request(method, params, options),
    fulfil: (requests, signal) =>
      fulfil(wire, requests, TaskMethod.Update, (key, method) => parts.inputContext(key, method, signal)),
    follow: (taskId) => {
      if (feed === undefined) {
        feed = parts.spoken().taskFeed((err) => peer.report(err));
        if (peer.isClosed) feed.end();
      }
      return feed.follow(taskId);
    },
    end: () => feed?.end(),
    onProgress: (listener) => parts.onProgress(listener),
    lookup: async (name, options) => {
      parts.requireTools();
      return (await catalog.lookup(name, options))?.taskSupport;
    },
    clock: peer.clock,
    maxTotalTimeoutMs: peer.maxTotalTimeoutMs,
    report: (err) => peer.report(err),
  };
}
