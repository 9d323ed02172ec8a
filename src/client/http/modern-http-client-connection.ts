import { createParser } from 'eventsource-parser';
import { McpError } from '../../jsonrpc/errors.js';
import { parseMessage } from '../../jsonrpc/parse.js';
import { serialize } from '../../jsonrpc/serialize.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { answeredInvalid } from '../../peer/deliver.js';
import { ConnectionClosedError, ResponseLostError } from '../../peer/errors.js';
import { MetaKey } from '../../protocol/envelope.js';
import { type HeaderAnnotation, headerAnnotations } from '../../protocol/header-annotations.js';
import { mirroredHeaders } from '../../protocol/mcp-headers.js';
import { Method } from '../../protocol/types.js';
import { StreamableHTTPError } from './http-client-errors.js';
import {
  DEFAULT_MAX_EVENT_CHARS,
  discard,
  excerpt,
  jsonAnswer,
  lowerCased,
  reason,
  serverMessage,
  tooLongAnswer,
} from './http-replies.js';
import { plainFetch } from './plain-fetch.js';

/** How a `ModernHTTPClientConnection` reaches its server. Every field is optional. */
export interface ModernHTTPClientOptions {
  /** The fetch to use (an OAuth-aware one, a test double). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Headers sent with every request. Those the protocol owns (Accept, `Mcp-*`, …) win. */
  headers?: Record<string, string>;
  /** Called before every request; its headers are added, e.g. a fresh bearer token. */
  authHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  /**
   * The longest answer read: an SSE event still unfinished, in characters; a JSON body, in bytes. Past it the
   * request fails with a ResponseLostError saying so, and the rest is not read. Default 16 Mi.
   */
  maxEventChars?: number;
}

const ACCEPT = 'application/json, text/event-stream';

/** One request on its way: what cancels its stream, and whether its answer came. */
interface Exchange {
  readonly method: string;
  readonly controller: AbortController;
  answered: boolean;
}

/**
 * The client side of the Streamable HTTP transport in the modern era (spec 2026-07-28) as a `Connection`:
 * no session, one POST per request, whose answer is JSON or an SSE stream of the notifications related to it
 * and then the answer.
 *
 * Promises: each request's POST carries `MCP-Protocol-Version` (the `_meta` claim of the request itself) and
 * the headers mirrored from its body (`Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` from the `x-mcp-header`
 * annotations of the tool as `tools/list` last described it). The body of any 2xx answer to a request is read
 * for its answer, JSON or SSE: there is no other stream for it to come on. A tool whose annotations are invalid
 * is dropped from every `tools/list` answer, with a warning through `receiver.error` (the spec's MUST for HTTP
 * clients).
 * An error status whose body is a JSON-RPC error is delivered as the answer, so the caller sees the server's
 * code; any other refusal rejects the request with a StreamableHTTPError carrying the status. A stream that
 * breaks before the answer fails the request with a ResponseLostError (`receiver.lost`): there is no
 * resumption in this era. `notifications/cancelled` closes the request's stream, which is how this era
 * cancels over HTTP, instead of being posted. The server must not send requests here: one is reported and
 * dropped. `close()` aborts every stream.
 */
export class ModernHTTPClientConnection implements Connection {
  readonly era = 'modern';
  private receiver: Receiver | undefined;
  private closed = false;
  private readonly exchanges = new Map<RequestId, Exchange>();
  /** The `x-mcp-header` annotations of each tool `tools/list` described, by tool name. */
  private readonly annotations = new Map<string, readonly HeaderAnnotation[]>();
  private readonly fetch: typeof fetch;
  private readonly maxEventChars: number;
  private readonly baseHeaders: Record<string, string>;
  private readonly authHeaders: ModernHTTPClientOptions['authHeaders'];
  private readonly url: string;

  constructor(url: string | URL, options: ModernHTTPClientOptions = {}) {
    this.url = String(url);
    this.fetch = plainFetch(options.fetch);
    this.maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    this.baseHeaders = lowerCased(options.headers);
    this.authHeaders = options.authHeaders;
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    if (this.closed) receiver.closed();
  }

  async send(message: JsonRpcMessage, _related?: RequestId): Promise<void> {
    if (this.closed) throw new ConnectionClosedError();
    if (!('method' in message)) return; // no server requests in this era, so nothing of ours to answer
    if (!('id' in message)) {
      if (message.method === Method.Cancelled) return this.cancel(message.params?.requestId);
      return this.post(message, undefined);
    }
    const exchange: Exchange = { method: message.method, controller: new AbortController(), answered: false };
    this.exchanges.set(message.id, exchange);
    return this.post(message, exchange);
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const exchange of this.exchanges.values()) exchange.controller.abort(new ConnectionClosedError());
      this.exchanges.clear();
      this.receiver?.closed();
    }
    return Promise.resolve();
  }

  // ---- one POST ----

  private async post(message: JsonRpcRequest | JsonRpcNotification, exchange: Exchange | undefined) {
    const request = exchange === undefined ? undefined : (message as JsonRpcRequest);
    const headers = await this.headersFor(message);
    let response: Response;
    try {
      response = await this.fetch(this.url, {
        method: 'POST',
        headers,
        body: serialize(message),
        signal: exchange?.controller.signal,
      });
    } catch (err) {
      if (this.closed || exchange?.controller.signal.aborted) return;
      const why = `the POST to ${this.url} failed: ${reason(err)}`;
      if (request === undefined) throw new StreamableHTTPError(why, undefined, undefined, { cause: err });
      return this.lose(request.id, why);
    }
    if (request === undefined) {
      discard(response);
      if (!response.ok) {
        throw new StreamableHTTPError(
          `HTTP ${response.status} to notification "${message.method}"`,
          response.status,
        );
      }
      return;
    }
    if (!response.ok) return this.refused(response, request);
    const type = response.headers.get('content-type')?.toLowerCase() ?? '';
    if (type.includes('text/event-stream')) {
      this.follow(response, request).catch((err) => this.receiver?.error(err));
      return;
    }
    if (!type.includes('application/json')) {
      discard(response);
      return this.lose(request.id, `the server answered with Content-Type "${type}", neither JSON nor SSE`);
    }
    const read = await jsonAnswer(response, this.maxEventChars);
    if ('problem' in read) return this.lose(request.id, read.problem);
    this.deliver(read.text);
    this.lose(request.id, 'the JSON answer of the POST did not answer the request');
  }

  /**
   * A non-2xx answer. A JSON-RPC error in the body is the answer (-32020, -32022… carry what to correct);
   * otherwise the request fails with the status.
   */
  private async refused(response: Response, request: JsonRpcRequest): Promise<void> {
    const body = await excerpt(response);
    const error = jsonRpcError(body);
    if (error !== undefined) {
      this.settle(request.id);
      this.receiver?.message({ jsonrpc: '2.0', id: request.id, error });
      return;
    }
    this.settle(request.id);
    throw new StreamableHTTPError(
      `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from POST ${this.url} ` +
        `(request "${request.method}"): ${serverMessage(body)}`,
      response.status,
      body,
    );
  }

  /** Reads a request's SSE answer: its notifications, then the answer; a stream ending sooner loses it. */
  private async follow(response: Response, request: JsonRpcRequest): Promise<void> {
    const body = response.body;
    if (body === null) return this.lose(request.id, 'the server sent an SSE answer without a body');
    const exchange = this.exchanges.get(request.id);
    let tooLong = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.data !== '' && (event.event === undefined || event.event === 'message'))
          this.deliver(event.data);
      },
      // Unknown fields and bad retry values are ignored, as the SSE standard says.
      onError: (err) => {
        tooLong ||= err.type === 'max-buffer-size-exceeded';
      },
      maxBufferSize: this.maxEventChars,
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        if (exchange?.answered) {
          reader.cancel().catch(() => {});
          return;
        }
        if (tooLong) {
          reader.cancel().catch(() => {});
          return this.lose(request.id, tooLongAnswer('an event of the SSE answer', this.maxEventChars));
        }
      }
    } catch (err) {
      if (this.closed || exchange?.controller.signal.aborted) return;
      return this.lose(request.id, `the SSE stream dropped: ${reason(err)}`);
    } finally {
      reader.releaseLock();
    }
    this.lose(request.id, 'the server ended the SSE stream before answering');
  }

  // ---- delivery ----

  private deliver(text: string): void {
    if (this.closed) return;
    const parsed = parseMessage(text);
    if (parsed.kind !== 'message') {
      const why =
        parsed.kind === 'batch' ? 'a JSON-RPC batch, which this era does not have' : parsed.error.message;
      this.receiver?.error(new McpError(-32600, `The server sent an invalid message: ${why}`));
      // An invalid answer to one of our requests fails it now.
      const failed =
        parsed.kind === 'invalid' && this.receiver ? answeredInvalid(parsed, this.receiver) : undefined;
      if (failed !== undefined) this.settle(failed);
      return;
    }
    const message = parsed.message;
    if ('method' in message) {
      if ('id' in message) {
        this.receiver?.error(
          new Error(
            `The server sent a request ("${message.method}") on a 2026-07-28 stream, which the spec forbids: ignored`,
          ),
        );
        return;
      }
      this.receiver?.message(message);
      return;
    }
    if (message.id === null) {
      this.receiver?.message(message);
      return;
    }
    const exchange = this.exchanges.get(message.id);
    if (exchange !== undefined && exchange.method === Method.ToolsList && 'result' in message) {
      this.learnTools(message.result);
    }
    this.settle(message.id);
    this.receiver?.message(message);
  }

  /**
   * Records the header annotations of each listed tool, and drops the tools whose annotations are invalid:
   * a call to one could never carry the headers the server checks.
   */
  private learnTools(result: Record<string, unknown>): void {
    const tools = result.tools;
    if (!Array.isArray(tools)) return;
    const kept: unknown[] = [];
    for (const tool of tools) {
      const name = (tool as { name?: unknown })?.name;
      if (typeof name !== 'string') {
        kept.push(tool);
        continue;
      }
      try {
        this.annotations.set(name, headerAnnotations((tool as { inputSchema?: unknown }).inputSchema));
        kept.push(tool);
      } catch (err) {
        this.annotations.delete(name);
        this.receiver?.error(
          new Error(
            `Tool "${name}" was left out of tools/list: its x-mcp-header annotations are invalid: ${(err as Error).message}`,
          ),
        );
      }
    }
    if (kept.length !== tools.length) result.tools = kept;
  }

  // ---- bookkeeping ----

  private settle(id: RequestId): void {
    const exchange = this.exchanges.get(id);
    if (exchange === undefined) return;
    exchange.answered = true;
    this.exchanges.delete(id);
  }

  /** No answer will come to request `id` (unless it came already). */
  private lose(id: RequestId, why: string): void {
    const exchange = this.exchanges.get(id);
    if (exchange === undefined || this.closed) return;
    this.settle(id);
    this.receiver?.lost?.(id, new ResponseLostError(exchange.method, why));
  }

  /** Closing the stream is this era's cancellation over HTTP; the session has already given up on it. */
  private cancel(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const exchange = this.exchanges.get(id);
    if (exchange === undefined) return;
    this.exchanges.delete(id);
    exchange.controller.abort();
  }

  private async headersFor(message: JsonRpcRequest | JsonRpcNotification): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.baseHeaders };
    if (this.authHeaders !== undefined) Object.assign(headers, lowerCased(await this.authHeaders()));
    headers.accept = ACCEPT;
    headers['content-type'] = 'application/json';
    const params = message.params;
    const version = (params?._meta as Record<string, unknown> | undefined)?.[MetaKey.ProtocolVersion];
    if (typeof version === 'string') headers['mcp-protocol-version'] = version;
    const name = params?.name;
    const annotations =
      message.method === Method.ToolsCall && typeof name === 'string'
        ? this.annotations.get(name)
        : undefined;
    const mirrored = mirroredHeaders(message.method, params, annotations);
    for (const header in mirrored) headers[header.toLowerCase()] = mirrored[header];
    return headers;
  }
}

/** The error object of a JSON-RPC error response in `body`, or undefined when the body is not one. */
function jsonRpcError(body: string): { code: number; message: string; data?: unknown } | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = parsed?.error;
    if (typeof error?.code !== 'number' || typeof error.message !== 'string') return undefined;
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  } catch {
    return undefined;
  }
}
