import type { JsonRpcMessage, JsonRpcRequest, Params, RequestId } from '../jsonrpc/types.js';
import type { Connection, Receiver } from '../peer/connection.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/versions.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { Server, ServerConnectOptions } from '../server/server.js';

/** One message a session sent, as the wire would carry it, with the request it was related to. */
export interface Sent {
  message: Record<string, any>;
  related: RequestId | undefined;
}

/**
 * A Connection that records every message a session sends (JSON round-tripped, as on a wire, with
 * its `related` id) and lets a test deliver messages to the session by hand.
 */
export class RecordingConnection implements Connection {
  readonly sent: Sent[] = [];
  receiver: Receiver | undefined;
  private waiters: Array<() => void> = [];

  start(receiver: Receiver): void {
    this.receiver = receiver;
  }

  send(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    this.sent.push({ message: JSON.parse(JSON.stringify(message)), related });
    for (const wake of this.waiters.splice(0)) wake();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.receiver?.closed();
    return Promise.resolve();
  }

  /** Resolves with the first sent message (from index `from`) that `match` accepts; fails after `ms`. */
  async next(match: (s: Sent) => boolean, from = 0, ms = 2000): Promise<Sent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.sent.slice(from).find(match);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no matching message within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 20);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/**
 * Plays an MCP client against a Server by hand, over a RecordingConnection: sends requests and
 * notifications, answers the server's requests, and reads what the server sent.
 */
export class FakeClient {
  readonly connection = new RecordingConnection();
  readonly session: ServerSession;
  private nextId = 1;

  constructor(server: Server, options?: ServerConnectOptions) {
    this.session = server.connect(this.connection, options);
  }

  get sent(): Sent[] {
    return this.connection.sent;
  }

  /** Delivers a message to the session as if it came from the wire. */
  deliver(message: Record<string, unknown>): void {
    this.connection.receiver!.message(JSON.parse(JSON.stringify(message)) as JsonRpcMessage);
  }

  /** Sends a request and resolves with the whole response message (result or error). */
  async call(method: string, params?: Params, id: RequestId = this.nextId++): Promise<Record<string, any>> {
    const from = this.sent.length;
    const request: JsonRpcRequest =
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    this.deliver(request as unknown as Record<string, unknown>);
    const response = await this.connection.next((s) => s.message.id === id && !('method' in s.message), from);
    return response.message;
  }

  /** Sends a request and resolves with its result; rejects with the error object's message. */
  async result(method: string, params?: Params): Promise<Record<string, any>> {
    const response = await this.call(method, params);
    if (response.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  notify(method: string, params?: Params): void {
    this.deliver(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Runs initialize and sends notifications/initialized; resolves with the initialize result. */
  async initialize(capabilities: Record<string, unknown> = {}, protocolVersion = LATEST_PROTOCOL_VERSION) {
    const result = await this.result('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'fake-client', version: '1.0.0' },
    });
    this.notify('notifications/initialized');
    return result;
  }

  /** The notifications sent so far, optionally only those of `method`. */
  notifications(method?: string): Sent[] {
    return this.sent.filter(
      (s) => !('id' in s.message) && (method === undefined || s.message.method === method),
    );
  }

  /**
   * Waits for the server to send a request of `method` (the first one sent from index `from` on), and answers it
   * with `result`, whatever that is.
   */
  async answer(method: string, result: unknown, from = 0): Promise<Sent> {
    const request = await this.connection.next((s) => s.message.method === method && 'id' in s.message, from);
    this.deliver({ jsonrpc: '2.0', id: request.message.id, result });
    return request;
  }
}

/** Lets queued microtasks and already-due callbacks run (e.g. coalesced list_changed notifications). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
