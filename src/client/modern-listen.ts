import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, Params, RequestId } from '../jsonrpc/types.js';
import {
  CapabilityError,
  ConnectionClosedError,
  RequestCancelledError,
  ResponseLostError,
} from '../peer/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import { filterProblem, honouredFilter } from '../protocol/subscription-filter.js';
import { Method, type ServerCapabilities } from '../protocol/types.js';
import { Listen } from './listen.js';
import { type RetryPolicy, retryDelay, retryPolicy } from './retry-policy.js';
import type { EraWire } from './session-era.js';

/** Where the session sends what arrives for one open listen request, by its id. */
export interface ListenRoute {
  /** `notifications/subscriptions/acknowledged`, with the filter the server says it honours, as it came. */
  acknowledged(notifications: unknown): void;
  /** A notification tagged with this listen's subscription id. */
  notification(notification: JsonRpcNotification): void;
  /** The server ended the listen with `notifications/cancelled` instead of a result (stdio). */
  cancelled(): void;
}

export type ListenRoutes = Map<RequestId, ListenRoute>;

/**
 * A stream acknowledged at least this long ago (or the policy's longest delay, if longer) was healthy: its
 * drop starts the backoff afresh. One that drops sooner counts as a failed attempt, so a server that
 * acknowledges and drops at once is not re-opened forever at the shortest delay.
 */
const HEALTHY_STREAM_MS = 1000;

/**
 * Opens `subscriptions/listen` (spec 2026-07-28) and resolves on its acknowledgement. Refused before
 * anything is sent when the server's capabilities leave nothing of `filter` to honour. Afterwards:
 * tagged notifications go to the Listen; a result or a `notifications/cancelled` from the server ends it;
 * an abrupt drop (ResponseLostError) re-opens it after the retry policy's backoff, and the reader gets a
 * resync (what changed meanwhile was not seen); any other failure of an acknowledged stream ends it. A
 * re-open refused before its acknowledgement, however it is refused, is one more failed attempt: the server
 * took this listen before, so what refuses it now is most often the deployment in flux (a balancer's 502
 * while a process is out of its rotation, a 503 while shared state is away, a bound still counting a dead
 * process's streams). The listen ends with the last error once the budget is spent, or at once when the
 * session is closed. The session lives on whatever happens to the listen.
 */
export function openModernListen(
  wire: EraWire,
  envelope: (params: Params) => Params,
  capabilities: ServerCapabilities,
  filter: SubscriptionFilter,
  options: RequestOptions | undefined,
  routes: ListenRoutes,
  retry: Partial<RetryPolicy> | undefined,
): Promise<Listen> {
  if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
  const possible = honouredFilter(filter, capabilities);
  if (Object.keys(possible).length === 0) {
    return Promise.reject(
      new CapabilityError(
        'The server announces no change it could notify for this filter (no listChanged or subscribe ' +
          'capability that matches), so subscriptions/listen was not sent',
      ),
    );
  }
  const policy = retryPolicy(retry);
  let controller = new AbortController();
  let listen: Listen | undefined;
  /** The wait before a re-open, while one runs: closing (or the caller's signal) ends it at once. */
  let waiting: ReturnType<typeof setTimeout> | undefined;
  const stop = async () => {
    clearTimeout(waiting);
    waiting = undefined;
    controller.abort(new Error('listen closed'));
  };
  options?.signal?.addEventListener(
    'abort',
    () => {
      if (waiting === undefined) return;
      clearTimeout(waiting);
      waiting = undefined;
      listen?.finish({ reason: 'closed' });
    },
    { once: true },
  );

  return new Promise<Listen>((resolveOpen, rejectOpen) => {
    let attempt = 0;
    const healthyAfter = Math.max(HEALTHY_STREAM_MS, policy.maxDelayMs);
    const open = () => {
      controller = new AbortController();
      const signal =
        options?.signal === undefined
          ? controller.signal
          : AbortSignal.any([controller.signal, options.signal]);
      const issued = wire.issue<Record<string, unknown>>(
        Method.SubscriptionsListen,
        envelope({ notifications: filter }),
        {
          signal,
          timeoutMs: Number.POSITIVE_INFINITY,
        },
      );
      const id = issued.id;
      let acknowledged = false;
      let acknowledgedAt: number | undefined;
      routes.set(id, {
        acknowledged(notifications) {
          if (acknowledged) return;
          acknowledged = true;
          acknowledgedAt = Date.now();
          const problem = filterProblem(notifications);
          if (problem !== undefined) {
            // What the stream would carry is unknown: it is given up, as the server's fault.
            const err = new McpError(
              ErrorCode.InvalidParams,
              `The server acknowledged subscriptions/listen with a filter that is not one: notifications${problem}; the listen was cancelled`,
            );
            if (listen === undefined) rejectOpen(err);
            else listen.finish({ reason: 'failed', error: err });
            void stop();
            return;
          }
          const honoured = notifications as SubscriptionFilter;
          if (listen === undefined) {
            listen = new Listen(honoured, stop);
            resolveOpen(listen);
          } else {
            listen.honoured = honoured;
            listen.push({ type: 'resync', reason: 'the listen stream was opened again after it broke' });
          }
        },
        notification(notification) {
          listen?.push({ type: 'notification', notification });
        },
        cancelled() {
          routes.delete(id);
          listen?.finish({ reason: 'ended' });
          controller.abort(new Error('the server ended the listen'));
        },
      });
      issued.result.then(
        () => {
          routes.delete(id);
          if (listen === undefined)
            rejectOpen(new Error('The server ended subscriptions/listen before acknowledging it'));
          else listen.finish({ reason: 'ended' });
        },
        (err: Error) => {
          routes.delete(id);
          if (err instanceof RequestCancelledError && listen !== undefined) {
            listen.finish({ reason: 'closed' }); // by close(), or the caller's signal
            return;
          }
          if (acknowledgedAt !== undefined && Date.now() - acknowledgedAt >= healthyAfter) attempt = 0;
          // A closed session does not come back: its listen ends at once.
          const reopening = listen !== undefined && !acknowledged && !(err instanceof ConnectionClosedError);
          if (!(err instanceof ResponseLostError || reopening) || ++attempt > policy.maxAttempts) {
            if (listen === undefined) rejectOpen(err);
            else listen.finish({ reason: 'failed', error: err });
            return;
          }
          if (listen !== undefined && !listen.isOpen) return;
          waiting = setTimeout(
            () => {
              waiting = undefined;
              if (listen === undefined || listen.isOpen) open();
            },
            retryDelay(policy, attempt, Math.random),
          );
        },
      );
    };
    open();
  });
}
