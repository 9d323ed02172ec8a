// A client of an MCP server over Streamable HTTP whose every HTTP exchange, and every message it delivered to its
// session, is recorded: what the cluster tests check "exactly once" and "whichever process answered" against.
import assert from 'node:assert/strict';
import { Client } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import {
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from '../client/http/streamable-http-client-connection.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Receiver } from '../peer/connection.js';
import { BACKEND_HEADER } from './round-robin-proxy.js';

/** The root a tapped client lists. */
export const TAPPED_ROOT = { uri: 'file:///tmp/mcpwire-cluster', name: 'cluster' };

/** One HTTP exchange of a client, as it saw it. */
export interface Exchange {
  method: string;
  /** The JSON-RPC message POSTed. */
  message: JsonRpcMessage | undefined;
  lastEventId: string | undefined;
  status: number | undefined;
  /** The process that answered, as the proxy named it. */
  backend: string | undefined;
}

/** The Streamable HTTP client with its HTTP exchanges and what it delivered to the session recorded. */
export class TappedConnection extends StreamableHTTPClientConnection {
  readonly delivered: JsonRpcMessage[] = [];
  readonly restarts: Error[] = [];
  readonly exchanges: Exchange[];

  constructor(url: string, options: StreamableHTTPClientOptions = {}) {
    const exchanges: Exchange[] = [];
    super(url, { ...options, fetch: recordingFetch(exchanges) });
    this.exchanges = exchanges;
  }

  override start(receiver: Receiver): void {
    super.start({
      message: (m, info) => {
        this.delivered.push(m);
        receiver.message(m, info);
      },
      batch: (b, info) => {
        this.delivered.push(...b);
        receiver.batch(b, info);
      },
      error: (err) => receiver.error(err),
      restarted: (cause, unsent) => {
        this.restarts.push(cause);
        receiver.restarted(cause, unsent);
      },
      closed: (cause) => receiver.closed(cause),
    });
  }
}

function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const exchange: Exchange = {
      method: init?.method ?? 'GET',
      message: typeof init?.body === 'string' ? (JSON.parse(init.body) as JsonRpcMessage) : undefined,
      lastEventId: headers['last-event-id'],
      status: undefined,
      backend: undefined,
    };
    log.push(exchange);
    const response = await fetch(input, init);
    exchange.status = response.status;
    exchange.backend = response.headers.get(BACKEND_HEADER) ?? undefined;
    return response;
  };
}

/** A connected client: its session, its transport's records, the prompts its model was asked, its errors. */
export interface Connected {
  session: ClientSession;
  tap: TappedConnection;
  sampled: string[];
  errors: Error[];
}

/**
 * A client of mcpwire with every capability (sampling answered `model says: <prompt>`, roots TAPPED_ROOT) connected
 * to `url` through a TappedConnection; close its session when done.
 */
export async function connectTapped(url: string): Promise<Connected> {
  const sampled: string[] = [];
  const errors: Error[] = [];
  const client = new Client(
    { name: 'cluster-test', version: '1.0.0' },
    {
      requestTimeoutMs: 10_000,
      roots: [TAPPED_ROOT],
      onerror: (err) => errors.push(err),
      sampling: (params) => {
        const first = params.messages[0]?.content;
        const prompt =
          first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '';
        sampled.push(prompt);
        return {
          role: 'assistant',
          content: { type: 'text', text: `model says: ${prompt}` },
          model: 'test-model',
        };
      },
    },
  );
  const tap = new TappedConnection(url);
  const session = await client.connect(tap);
  return { session, tap, sampled, errors };
}

/**
 * No message reached the session twice: each response and each server request by id, each notification by
 * its whole content (the tests make every notification they cause distinct).
 */
export function assertDeliveredOnce(delivered: readonly JsonRpcMessage[]): void {
  const seen = new Set<string>();
  for (const m of delivered) {
    const key =
      'method' in m
        ? 'id' in m
          ? `request ${JSON.stringify(m.id)}`
          : `notification ${JSON.stringify(m)}`
        : `response ${JSON.stringify(m.id)}`;
    assert.ok(!seen.has(key), `delivered twice: ${key}`);
    seen.add(key);
  }
}
