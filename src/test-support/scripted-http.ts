import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { MetaKey } from '../protocol/envelope.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { listenLoopback, readBody } from './http-loopback.js';

/*
 * A loopback HTTP "server" that answers exactly what a test scripts, and records every request it got: for
 * the client-side tests of the modern era, where a case needs one precise (often wrong) answer.
 */

/** One request the scripted server received. */
export interface Hit {
  readonly httpMethod: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there is none or it is not JSON). */
  readonly message: any;
  /** True once the client closed the connection before the response ended (cancellation). */
  aborted: boolean;
  /** Resolves once the response is over, ended or cut. */
  readonly closed: Promise<void>;
}

export type Script = (hit: Hit, res: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
  readonly url: string;
  readonly hits: Hit[];
  /** The POSTs of JSON-RPC method `method` (all POSTs when undefined). */
  posts(method?: string): Hit[];
  /** The GETs (the legacy HTTP+SSE transport's opening). */
  gets(): Hit[];
  close(): Promise<void>;
}

export async function scriptedServer(script: Script): Promise<ScriptedServer> {
  const hits: Hit[] = [];
  const http = await listenLoopback(async (req, res) => {
    const text = await readBody(req);
    let message: unknown;
    try {
      message = text === '' ? undefined : JSON.parse(text);
    } catch {
      message = undefined;
    }
    let done!: () => void;
    const hit: Hit = {
      httpMethod: req.method ?? '',
      headers: req.headers,
      message,
      aborted: false,
      closed: new Promise((r) => {
        done = r;
      }),
    };
    res.on('close', () => {
      if (!res.writableEnded) hit.aborted = true;
      done();
    });
    hits.push(hit);
    try {
      await script(hit, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    hits,
    posts: (method) =>
      hits.filter((h) => h.httpMethod === 'POST' && (method === undefined || h.message?.method === method)),
    gets: () => hits.filter((h) => h.httpMethod === 'GET'),
    close: () => http.close(),
  };
}

export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Opens an SSE response and writes `messages` as events; the caller ends or cuts it. */
export function openSse(res: ServerResponse, messages: unknown[] = []): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const m of messages) writeEvent(res, m);
}

export function writeEvent(res: ServerResponse, message: unknown): void {
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** Cuts the response mid-stream: what a crashed server or a dropped proxy does. */
export function cut(res: ServerResponse): void {
  res.socket?.destroy();
}

export const result = (id: unknown, r: Record<string, unknown>) => ({ jsonrpc: '2.0', id, result: r });
export const error = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

export function discoverResult(capabilities: ServerCapabilities = { tools: {} }) {
  return {
    supportedVersions: ['2026-07-28'],
    capabilities,
    _meta: { [MetaKey.ServerInfo]: { name: 'scripted', version: '1' } },
  };
}

/** A modern server: `server/discover` answered with `capabilities`, every other method by `answer`. */
export function modern(answer: Script, capabilities?: ServerCapabilities): Script {
  return (hit, res) => {
    if (hit.message?.method === 'server/discover')
      return sendJson(res, result(hit.message.id, discoverResult(capabilities)));
    return answer(hit, res);
  };
}
