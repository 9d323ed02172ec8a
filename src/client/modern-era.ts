import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { CapabilityError, ResponseLostError } from '../peer/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import { MetaKey } from '../protocol/envelope.js';
import { inputRequiredProblem } from '../protocol/input-requests.js';
import {
  type InputRequiredResult,
  ROUND_TRIP_METHODS,
  type SubscriptionFilter,
} from '../protocol/modern-types.js';
import { type Implementation, type LoggingLevel, Method } from '../protocol/types.js';
import type { RequestObservation, Telemetry } from '../telemetry/telemetry.js';
import type { Client } from './client.js';
import type { ClientContext } from './client-session.js';
import { fulfil } from './input-rounds.js';
import type { Listen } from './listen.js';
import { type ListenRoutes, openModernListen } from './modern-listen.js';
import { ModernTaskFeed } from './modern-task-feed.js';
import { withEnvelope } from './request-envelope.js';
import { invalidResult } from './server-result.js';
import type { EraWire, ModernStart, ServerDescription, SessionEra } from './session-era.js';
import type { TaskFeed } from './task-inbox.js';

/** Rounds of `input_required` one request may take before the client gives up on it. */
export const DEFAULT_MAX_INPUT_ROUNDS = 10;
/** Times a request that is safe to repeat is sent again after its answer was lost. */
const MAX_REISSUES = 2;

/**
 * A session in the modern era (spec 2026-07-28): no handshake and no server session. Every request carries
 * the `_meta` envelope (this version, this client's capabilities and info, the log level once set) and is
 * read by its `resultType`: `input_required` rounds are fulfilled with the Client's handlers and the request
 * sent again under a new id, with `inputResponses` and the `requestState` echoed byte-exact, until complete
 * or `maxInputRounds`. A lost answer is asked again when the request is safe to repeat, and fails with a
 * ResponseLostError otherwise. A tools/call refused with -32020 (our headers came from a stale tool list) is
 * sent again once, after the tool list is read afresh.
 */
export class ModernEra implements SessionEra {
  readonly name = 'modern';
  readonly protocolVersion: string;
  readonly server: ServerDescription;
  private logLevel: LoggingLevel | undefined;
  private readonly maxRounds: number;

  constructor(
    private readonly wire: EraWire,
    private readonly client: Client,
    start: ModernStart,
    private readonly contextFor: (key: string, method: string, signal: AbortSignal) => ClientContext,
    private readonly routes: ListenRoutes,
  ) {
    this.protocolVersion = start.protocolVersion;
    const discover = start.discover;
    this.server = {
      serverInfo: serverInfoOf(discover),
      capabilities: discover.capabilities,
      instructions: typeof discover.instructions === 'string' ? discover.instructions : undefined,
    };
    this.maxRounds = client.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
  }

  /**
   * Observed, a request is one CLIENT span over all its rounds (each round's trace context in its `_meta`), with
   * a span for each round of input the client fulfils in between.
   */
  request<R>(method: string, params: Params | undefined, options: RequestOptions = {}): Promise<R> {
    const telemetry = this.client.telemetry;
    return telemetry === undefined
      ? this.rounds(method, params, options)
      : this.observed(telemetry, method, params, options);
  }

  private async observed<R>(
    telemetry: Telemetry,
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): Promise<R> {
    const observation = telemetry.sending(method, this.envelope(params), {
      protocolVersion: this.protocolVersion,
    });
    try {
      const result = await observation.run(() => this.rounds<R>(method, params, { ...options, observation }));
      observation.end(result as Record<string, unknown>);
      return result;
    } catch (err) {
      observation.end(undefined, err);
      throw err;
    }
  }

  private async rounds<R>(method: string, params: Params | undefined, options: RequestOptions): Promise<R> {
    let retriedHeaders = false;
    let round: Params | undefined = params;
    for (let rounds = 0; ; ) {
      let result: Record<string, unknown>;
      try {
        result = await this.send(method, round, options);
      } catch (err) {
        if (
          !retriedHeaders &&
          method === Method.ToolsCall &&
          err instanceof McpError &&
          err.code === ErrorCode.HeaderMismatch
        ) {
          retriedHeaders = true;
          await this.wire.refreshTools({ ...options, observation: undefined });
          continue;
        }
        throw err;
      }
      const type = result.resultType;
      if (type === undefined || type === 'complete') return result as R;
      // A task (the Tasks extension) only where the request declared it: callTool follows it.
      if (type === 'task' && method === Method.ToolsCall && this.client.tasks !== undefined)
        return result as R;
      if (type !== 'input_required') {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `The server answered ${method} with resultType ${JSON.stringify(type)}, which this client does not know`,
          { result },
        );
      }
      if (!ROUND_TRIP_METHODS.has(method)) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `The server answered ${method} with input_required, which the spec allows only on tools/call, ` +
            'prompts/get and resources/read',
        );
      }
      const problem = inputRequiredProblem(result);
      if (problem !== undefined) throw invalidResult(method, problem);
      if (++rounds > this.maxRounds) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `${method} still needed input after ${this.maxRounds} rounds; giving up (Client option maxInputRounds)`,
        );
      }
      const observed = this.client.telemetry?.inputRound(method, params, rounds);
      round =
        observed === undefined
          ? await this.nextRound(method, params, result as InputRequiredResult, options)
          : await this.observedRound(observed, method, params, result as InputRequiredResult, options);
    }
  }

  private async observedRound(
    observed: RequestObservation,
    method: string,
    params: Params | undefined,
    result: InputRequiredResult,
    options: RequestOptions,
  ): Promise<Params> {
    try {
      const next = await observed.run(() => this.nextRound(method, params, result, options));
      observed.end(undefined);
      return next;
    } catch (err) {
      observed.end(undefined, err);
      throw err;
    }
  }

  /** The params of the next round: the original ones, the answers, and the state echoed as it came. */
  private async nextRound(
    method: string,
    params: Params | undefined,
    result: InputRequiredResult,
    options: RequestOptions,
  ): Promise<Params> {
    const next: Params = { ...params };
    const requests = result.inputRequests;
    if (requests !== undefined && Object.keys(requests).length > 0) {
      const signal = options.signal ?? new AbortController().signal;
      next.inputResponses = await fulfil(this.wire, requests, method, (key, m) =>
        this.contextFor(key, m, signal),
      );
    }
    if (result.requestState !== undefined) next.requestState = result.requestState;
    return next;
  }

  /** One request with the envelope; a lost answer is asked again while that is harmless. */
  private async send(
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    for (let reissues = 0; ; reissues++) {
      try {
        return await this.wire.request<Record<string, unknown>>(method, this.envelope(params), options);
      } catch (err) {
        if (
          !(err instanceof ResponseLostError) ||
          reissues >= MAX_REISSUES ||
          !this.wire.repeatable(method, params)
        ) {
          throw err;
        }
        options.signal?.throwIfAborted();
      }
    }
  }

  /** `params` with this request's `_meta` envelope. */
  envelope(params: Params | undefined): Params {
    return withEnvelope(params, this.client, this.protocolVersion, this.logLevel);
  }

  /** There is no ping in this era: `server/discover` is the cheapest request every server answers. */
  async ping(options: RequestOptions | undefined): Promise<void> {
    await this.send(Method.ServerDiscover, undefined, options ?? {});
  }

  /** The level rides in the `_meta` of every later request; nothing is sent now. */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
  }

  subscribeResource(uri: string): Promise<void> {
    return Promise.reject(
      new CapabilityError(
        `resources/subscribe does not exist in ${this.protocolVersion}: ` +
          `use session.listen({ resourceSubscriptions: [${JSON.stringify(uri)}] })`,
      ),
    );
  }

  async unsubscribeResource(uri: string): Promise<void> {
    await this.subscribeResource(uri);
  }

  /** Roots are asked for within each request that needs them: there is no one to tell. */
  async rootsChanged(): Promise<void> {}

  listen(filter: SubscriptionFilter, options: RequestOptions | undefined): Promise<Listen> {
    return openModernListen(
      this.wire,
      (params) => this.envelope(params),
      this.server.capabilities,
      filter,
      options,
      this.routes,
      this.client.options.retry,
    );
  }

  restart(): Promise<void> {
    return Promise.reject(new Error('A modern-era session has no server session to restart'));
  }

  taskFeed(report: (err: Error) => void): TaskFeed {
    return new ModernTaskFeed((taskIds) => this.listen({ taskIds }, undefined), report);
  }
}

/** The server's identity: on a modern result it rides in `_meta` (spec 2026-07-28, discover). */
function serverInfoOf(discover: Record<string, unknown>): Implementation {
  const meta = discover._meta as Record<string, unknown> | undefined;
  const info = meta?.[MetaKey.ServerInfo] ?? discover.serverInfo;
  if (typeof info === 'object' && info !== null && typeof (info as Implementation).name === 'string') {
    return info as Implementation;
  }
  return { name: '', version: '' };
}
