import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, Params } from '../jsonrpc/types.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import { honouredFilter } from '../protocol/subscription-filter.js';
import { type InitializeResult, type LoggingLevel, Method } from '../protocol/types.js';
import { validateInitializeResult } from '../protocol/validate.js';
import { isLegacyVersion, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { Client, ClientConnectOptions } from './client.js';
import { LegacyTaskFeed } from './legacy-task-feed.js';
import { Listen } from './listen.js';
import type { EraWire, ServerDescription, SessionEra } from './session-era.js';
import type { TaskFeed } from './task-inbox.js';

/** The notifications a legacy listen passes on, by the filter flag that asks for them. */
const LIST_FLAGS: ReadonlyArray<[string, keyof SubscriptionFilter]> = [
  [Method.ToolListChanged, 'toolsListChanged'],
  [Method.PromptListChanged, 'promptsListChanged'],
  [Method.ResourceListChanged, 'resourcesListChanged'],
];

/**
 * A session in the legacy era (2025-11-25 and before): `initialize` names the version and the server's
 * capabilities once, and the transport keeps the session. Requests go out as they are.
 */
export class LegacyEra implements SessionEra {
  readonly name = 'legacy';
  private result: InitializeResult | undefined;

  constructor(
    private readonly wire: EraWire,
    private readonly client: Client,
    /** Notifications from the server reach legacy listens through this (the session's catch-all event). */
    private readonly onNotification: (listener: (n: JsonRpcNotification) => void) => () => void,
  ) {}

  get protocolVersion(): string {
    return this.initialized().protocolVersion;
  }

  get server(): ServerDescription {
    const result = this.initialized();
    return {
      serverInfo: result.serverInfo,
      capabilities: result.capabilities,
      instructions: result.instructions,
    };
  }

  /** initialize, check the answer, keep it, send initialized. */
  async begin(options: ClientConnectOptions): Promise<void> {
    const result = await this.wire.request<InitializeResult>(
      Method.Initialize,
      this.client.initializeParams,
      {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      },
    );
    const problem = validateInitializeResult(result);
    if (problem !== undefined) {
      throw new McpError(ErrorCode.InvalidRequest, `The server's initialize result is invalid: ${problem}`);
    }
    if (!isLegacyVersion(result.protocolVersion)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The server chose protocol version "${result.protocolVersion}", which this client does not support ` +
          `(it asked for "${this.client.protocolVersion}"; it supports ${LEGACY_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    this.result = result;
    await this.wire.notify(Method.Initialized);
  }

  /** Only once `begin` resolved: its result. */
  get initializeResult(): InitializeResult {
    return this.initialized();
  }

  request<R>(method: string, params: Params | undefined, options: RequestOptions | undefined): Promise<R> {
    return this.wire.request<R>(method, params, options ?? {});
  }

  async ping(options: RequestOptions | undefined): Promise<void> {
    await this.request(Method.Ping, undefined, options);
  }

  async setLoggingLevel(level: LoggingLevel, options: RequestOptions | undefined): Promise<void> {
    await this.request(Method.LoggingSetLevel, { level }, options);
  }

  async subscribeResource(uri: string, options: RequestOptions | undefined): Promise<void> {
    await this.request(Method.ResourcesSubscribe, { uri }, options);
  }

  async unsubscribeResource(uri: string, options: RequestOptions | undefined): Promise<void> {
    await this.request(Method.ResourcesUnsubscribe, { uri }, options);
  }

  rootsChanged(): Promise<void> {
    return this.wire.notify(Method.RootsListChanged);
  }

  /**
   * A listen over the session: the list changes the server announces arrive on its standalone stream
   * anyway, and each resource is subscribed with resources/subscribe (undone by `close`). The filter is
   * narrowed to what the server's capabilities allow, as a modern server's acknowledgement would.
   */
  async listen(filter: SubscriptionFilter, options: RequestOptions | undefined): Promise<Listen> {
    const honoured = honouredFilter(filter, this.server.capabilities);
    const uris = honoured.resourceSubscriptions ?? [];
    for (const uri of uris) await this.subscribeResource(uri, options);
    const wanted = new Set(
      LIST_FLAGS.filter(([, flag]) => honoured[flag] === true).map(([method]) => method),
    );
    const subscribed = new Set(uris);
    let off = () => {};
    const listen = new Listen(honoured, async () => {
      off();
      await Promise.all(uris.map((uri) => this.unsubscribeResource(uri, undefined).catch(() => {})));
    });
    const signal = options?.signal;
    if (signal !== undefined) {
      const onAbort = () => listen.close().catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      listen.ended.then(() => signal.removeEventListener('abort', onAbort));
    }
    off = this.onNotification((notification) => {
      const method = notification.method;
      const uri = notification.params?.uri;
      if (
        wanted.has(method) ||
        (method === Method.ResourceUpdated && typeof uri === 'string' && subscribed.has(uri))
      ) {
        listen.push({ type: 'notification', notification });
      }
    });
    return listen;
  }

  taskFeed(report: (err: Error) => void): TaskFeed {
    return new LegacyTaskFeed(this.onNotification, report);
  }

  /** The transport reached a fresh server session: initialize it, which announces this client anew. */
  restart(): Promise<void> {
    return this.begin({ timeoutMs: undefined });
  }

  private initialized(): InitializeResult {
    if (this.result === undefined) throw new Error('The session has not completed initialize yet');
    return this.result;
  }
}
