// Hand-played task servers of both eras on an in-memory pair, for the client's task tests: what the client sent,
// in order, and what it got back. Neither pushes anything unless a test makes it.
import { Client, type ClientOptions } from '../client/client.js';
import { MetaKey } from '../protocol/envelope.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { type MemoryPeer, memoryPeer } from './memory-peer.js';
import { discoverResult, error, result } from './scripted-http.js';

/** Client polling limits that make a scripted task quick. */
export const FAST = { minPollIntervalMs: 0, defaultPollIntervalMs: 1 };
/** Limits under which the client never polls of its own accord in a test: only pushes, or reads they call for. */
export const NEVER = { minPollIntervalMs: 3_600_000, maxPollIntervalMs: 3_600_000 };

export const ELICIT = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};
const stamp = { createdAt: '2026-12-02T10:00:00Z', lastUpdatedAt: '2026-12-02T10:00:00Z' };

/** A 2026 task `t-1` (its state a second after `stamp` per `second`). */
export const modernTask = (status: string, more: Record<string, unknown> = {}, second = 0) => ({
  taskId: 't-1',
  status,
  ...stamp,
  lastUpdatedAt: `2026-12-02T10:00:${String(second).padStart(2, '0')}Z`,
  ttlMs: 60_000,
  pollIntervalMs: 1,
  ...more,
});

/** A 2025 task `L-1`. */
export const legacyTask = (status: string, second = 0) => ({
  taskId: 'L-1',
  status,
  ...stamp,
  lastUpdatedAt: `2026-12-02T10:00:${String(second).padStart(2, '0')}Z`,
  ttl: 60_000,
  pollInterval: 1,
});

export const done = (text: string) => ({ content: [{ type: 'text', text }] });

/** A client with tasks on, quick polls, and an elicitation handler that answers with the question. */
export function taskClient(options: ClientOptions = {}): Client {
  return new Client(
    { name: 'tasks-test', version: '1' },
    {
      requestTimeoutMs: 5000,
      tasks: FAST,
      elicitation: { form: (p) => ({ action: 'accept', content: { name: `Ada for ${p.message}` } }) },
      ...options,
    },
  );
}

/** The messages of `method` the peer got. */
export const sent = (peer: { seen: any[] }, method: string) => peer.seen.filter((m) => m.method === method);

/** A listen's acknowledgement that honours what it asked for. */
export const acknowledge = (m: any) => [
  tagged(m.id, 'notifications/subscriptions/acknowledged', { notifications: m.params.notifications }),
];

/** A notification of a listen stream: tagged with the id of the listen request. */
export const tagged = (listenId: unknown, method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method,
  params: { ...params, _meta: { [MetaKey.SubscriptionId]: listenId } },
});

/**
 * A 2026 peer: its n-th tools/call (from 1) answers `first` (or `first(n)`), its tasks/get answers come from
 * `states`, one a poll (the last repeats), for the task asked. Its answer to `subscriptions/listen` is `listen`'s
 * (default: -32601, no listen).
 */
export function modernPeer(
  first: Record<string, unknown> | ((call: number) => Record<string, unknown>),
  states: Array<Record<string, unknown>>,
  listen: (m: any) => Array<Record<string, unknown>> | undefined = (m) => [error(m.id, -32601, 'no')],
): MemoryPeer {
  let polls = 0;
  let calls = 0;
  return memoryPeer((m) => {
    switch (m.method) {
      case 'server/discover':
        return [result(m.id, discoverResult({ tools: {}, extensions: { [TASKS_EXTENSION]: {} } }))];
      case 'tools/list':
        return [result(m.id, { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] })];
      case 'tools/call':
        calls++;
        return [result(m.id, typeof first === 'function' ? first(calls) : first)];
      case 'tasks/get': {
        const state = states[Math.min(polls++, states.length - 1)];
        return [result(m.id, { resultType: 'complete', ...state, taskId: m.params.taskId })];
      }
      case 'tasks/update':
      case 'tasks/cancel':
        return [result(m.id, { resultType: 'complete' })];
      case 'subscriptions/listen':
        return listen(m);
      default:
        return m.id === undefined ? undefined : [error(m.id, -32601, 'no')];
    }
  });
}

/**
 * A 2025 peer: a task on tools/call; on tasks/result it first asks the client to elicit, then answers. With
 * `push`, it sends `notifications/tasks/status` on tasks/result as mcpwire's server does: `input_required` before
 * the question, `completed` before the result.
 */
export function legacyPeer(
  states: string[],
  options: { caps?: Record<string, unknown>; push?: boolean } = {},
): MemoryPeer {
  const caps = options.caps ?? { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  const status = (s: string, second: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/tasks/status',
    params: legacyTask(s, second),
  });
  let polls = 0;
  let waiting: unknown;
  let token: unknown;
  return memoryPeer((m) => {
    if (m.method === undefined && m.id === 'ask-1') {
      return [
        ...(options.push ? [status('completed', 2)] : []),
        result(waiting, done('Hello from a 2025 task')),
      ];
    }
    switch (m.method) {
      case 'server/discover':
        return [error(m.id, -32601, 'Method not found')];
      case 'initialize':
        return [
          result(m.id, {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, tasks: caps },
            serverInfo: { name: 'legacy', version: '1' },
          }),
        ];
      case 'tools/list':
        return [
          result(m.id, {
            tools: [
              { name: 'slow', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
              { name: 'quick', inputSchema: { type: 'object' } },
            ],
          }),
        ];
      case 'tools/call':
        token = m.params._meta?.progressToken;
        return [result(m.id, m.params.task ? { task: legacyTask('working') } : done('at once'))];
      case 'tasks/get': {
        const progress = { progressToken: token, progress: polls + 1, total: 9 };
        return [
          ...(token === undefined
            ? []
            : [{ jsonrpc: '2.0', method: 'notifications/progress', params: progress }]),
          result(m.id, legacyTask(states[Math.min(polls++, states.length - 1)])),
        ];
      }
      case 'tasks/result':
        waiting = m.id;
        return [
          ...(options.push ? [status('input_required', 1)] : []),
          { jsonrpc: '2.0', id: 'ask-1', method: 'elicitation/create', params: ELICIT.params },
        ];
      case 'tasks/list':
        return [result(m.id, { tasks: [legacyTask('working')] })];
      case 'tasks/cancel':
        return [result(m.id, legacyTask('cancelled'))];
      default:
        return m.id === undefined ? undefined : [error(m.id, -32601, 'no')];
    }
  });
}
