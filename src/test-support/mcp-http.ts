import { request } from 'node:http';
import type { LoopbackServer } from './http-loopback.js';
import { listenLoopback } from './http-loopback.js';

/** One parsed SSE event. */
export interface SSEEventRead {
  id?: string;
  data: string;
  retry?: number;
}

/** A handler served on 127.0.0.1 with its endpoint URL. */
export interface Served extends LoopbackServer {
  url: string;
}

export async function serveOn(listener: Parameters<typeof listenLoopback>[0]): Promise<Served> {
  const server = await listenLoopback(listener);
  return Object.assign(server, { url: `http://127.0.0.1:${server.port}/mcp` });
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** POSTs one JSON-RPC payload with the headers a correct client sends. */
export function post(
  url: string,
  body: unknown,
  options: { sessionId?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  return fetch(url, {
    method: 'POST',
    headers: { ...headers, ...options.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: options.signal,
  });
}

/**
 * POSTs `body` as `post` does, but from `localAddress` (127.0.0.2: another client on loopback, told apart by its
 * address): its status and, when it gave one, its session id, once its headers come (its body is read and dropped
 * as it comes: a stream goes on until the server ends it).
 */
export function postFrom(
  localAddress: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  sessionId: string | undefined;
  retryAfter: string | undefined;
  /** The body, once it has ended (never, for a stream that stays open). */
  text(): Promise<string>;
}> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        const ended = new Promise<string>((done) => res.on('end', () => done(text)));
        const sessionId = res.headers['mcp-session-id'];
        resolve({
          status: res.statusCode ?? 0,
          sessionId: typeof sessionId === 'string' ? sessionId : undefined,
          retryAfter: res.headers['retry-after'],
          text: () => ended,
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

export function get(
  url: string,
  sessionId: string | undefined,
  options: { lastEventId?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return fetch(url, { method: 'GET', headers: { ...headers, ...options.headers }, signal: options.signal });
}

export function initializeRequest(
  id: number | string = 0,
  protocolVersion = '2025-11-25',
  capabilities = {},
) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo: { name: 'test', version: '1' } },
  };
}

/** A `tools/call` request for tool `name` with `args`. */
export function toolCall(id: number | string, name: string, args: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** Initializes a session (initialize + notifications/initialized) and returns its id. */
export async function openSession(
  url: string,
  protocolVersion = '2025-11-25',
  capabilities = {},
  headers?: Record<string, string>,
): Promise<string> {
  const res = await post(url, initializeRequest(0, protocolVersion, capabilities), { headers });
  if (res.status !== 200) throw new Error(`initialize: ${res.status} ${await res.text()}`);
  const sessionId = res.headers.get('mcp-session-id');
  await res.text();
  if (sessionId === null) throw new Error('no session id');
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { sessionId, headers },
  );
  await ack.text();
  return sessionId;
}

/** Splits SSE text into events (comments and blank keep-alives skipped). */
export function parseSse(text: string): SSEEventRead[] {
  const events: SSEEventRead[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    const e: SSEEventRead = { data: '' };
    let hasField = false;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      hasField = true;
      if (name === 'id') e.id = value;
      else if (name === 'data') data.push(value);
      else if (name === 'retry') e.retry = Number(value);
    }
    if (!hasField) continue;
    e.data = data.join('\n');
    events.push(e);
  }
  return events;
}

/** The whole SSE body of a response, parsed. */
export async function readSse(res: Response): Promise<SSEEventRead[]> {
  return parseSse(await res.text());
}

/** The JSON-RPC messages of an SSE body (events with data). */
export async function sseMessages(res: Response): Promise<any[]> {
  return (await readSse(res)).filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
}

/**
 * Reads SSE events from a streaming response as they arrive; `next()` resolves with the next event, or
 * undefined when the stream ended.
 */
export class SSEReader {
  private buffer = '';
  private readonly queue: SSEEventRead[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private done = false;

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  async next(): Promise<SSEEventRead | undefined> {
    for (;;) {
      const e = this.queue.shift();
      if (e !== undefined) return e;
      if (this.done) return undefined;
      let chunk: Awaited<ReturnType<typeof this.reader.read>>;
      try {
        chunk = await this.reader.read();
      } catch {
        this.done = true;
        continue;
      }
      if (chunk.done) {
        this.done = true;
        continue;
      }
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      const cut = this.buffer.lastIndexOf('\n\n');
      if (cut !== -1) {
        this.queue.push(...parseSse(this.buffer.slice(0, cut + 2)));
        this.buffer = this.buffer.slice(cut + 2);
      }
    }
  }

  /** The next event that carries a message, parsed; undefined at the end. */
  async nextMessage(): Promise<{ id?: string; message: any } | undefined> {
    for (;;) {
      const e = await this.next();
      if (e === undefined) return undefined;
      if (e.data !== '') return { id: e.id, message: JSON.parse(e.data) };
    }
  }

  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => {});
  }
}

/** A response's JSON body, untyped for assertions. */

export function jsonBody(res: Response): Promise<any> {
  return res.json();
}
