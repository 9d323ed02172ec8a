// Raw MCP Streamable HTTP client: JSON-RPC 2.0 over HTTP POST/GET/DELETE, answers read as
// application/json or text/event-stream. No MCP SDK here, so the client's own cost is small and
// the same for every server under test. HTTP goes through undici's low-level dispatch API
// (keep-alive pool, no WHATWG fetch layer).
import { Pool } from 'undici';

export const PROTOCOL_VERSION = '2025-11-25';
/** The modern era's revision: no initialize and no session, the envelope in every request's `params._meta`. */
export const MODERN_VERSION = '2026-07-28';
const ACCEPT_POST = 'application/json, text/event-stream';

/** Refuse anything that is not loopback: this tool only ever loads servers on this machine. */
function assertLoopback(u) {
  const h = u.hostname.replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)) return;
  throw new Error(`refusing non-loopback target ${u.hostname}`);
}

/** A keep-alive connection pool to one MCP endpoint URL. */
export function endpoint(url, connections) {
  const u = new URL(url);
  assertLoopback(u);
  const pool = new Pool(u.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 60_000,
    bodyTimeout: 0, // SSE streams may sit idle
  });
  return { pool, path: u.pathname + u.search, close: () => pool.destroy().catch(() => {}) };
}

/**
 * One HTTP exchange. Resolves {status, headers} when the response body has ended; rejects on
 * network errors or abort. hooks: onController(ctl) (ctl.abort(err) drops the connection),
 * onStart(status, headers), onData(buffer).
 */
export function exchange(ep, method, headers, body, hooks = {}) {
  return new Promise((resolve, reject) => {
    let status = 0;
    let resHeaders = {};
    ep.pool.dispatch(
      { path: ep.path, method, headers, body: body ?? null },
      {
        onRequestStart(ctl) {
          hooks.onController?.(ctl);
        },
        onResponseStart(_ctl, s, h) {
          status = s;
          resHeaders = h;
          hooks.onStart?.(s, h);
        },
        onResponseData(_ctl, chunk) {
          hooks.onData?.(chunk);
        },
        onResponseEnd() {
          resolve({ status, headers: resHeaders });
        },
        onResponseError(_ctl, err) {
          reject(err);
        },
      },
    );
  });
}

/**
 * Incremental text/event-stream parser (the WHATWG rules that matter here): fields id/event/data,
 * comments, CRLF or LF, multi-line data. Works on bytes: '\n' never occurs inside a UTF-8
 * sequence, so lines are cut on raw bytes and each line is decoded once (no quadratic rescans of
 * a 1 MiB data line). Every event block is handed to onEvent as {id, event, data}; `id` is the
 * stream's last event id after this block (it persists, per spec); `data` is null for a block
 * with no data field and '' for an empty one (a priming event).
 */
export class SseParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.pending = []; // bytes of an unfinished line
    this.lastId = undefined;
    this.reset();
  }
  reset() {
    this.data = null;
    this.event = undefined;
    this.sawField = false;
  }
  push(chunk) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      let line = chunk.subarray(start, nl);
      if (this.pending.length) {
        this.pending.push(line);
        line = Buffer.concat(this.pending);
        this.pending = [];
      }
      this.line(
        line.toString('utf8', 0, line.length && line[line.length - 1] === 13 ? line.length - 1 : line.length),
      );
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(start ? chunk.subarray(start) : chunk);
  }
  line(line) {
    if (line === '') {
      if (this.sawField) this.onEvent({ id: this.lastId, event: this.event, data: this.data });
      this.reset();
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment / keep-alive */) return;
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    let value = c < 0 ? '' : line.slice(c + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    this.sawField = true;
    if (field === 'data') this.data = this.data === null ? value : this.data + '\n' + value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastId = value;
    } else if (field === 'event') this.event = value;
    // 'retry' and unknown fields are ignored
  }
}

/**
 * Reads one HTTP response carrying JSON-RPC (application/json body or SSE stream) and calls
 * onMessage(msg, sseEvent?) per JSON-RPC message as it arrives. Also counts body bytes.
 */
export class RpcResponseReader {
  constructor(onMessage, onEvent) {
    this.onMessage = onMessage;
    this.onEvent = onEvent;
    this.sse = false;
    this.chunks = [];
    this.bytes = 0;
    this.parser = null;
  }
  start(_status, headers) {
    const ct = String(headers['content-type'] ?? '');
    this.sse = ct.startsWith('text/event-stream');
    this.contentType = ct;
    if (this.sse) {
      this.parser = new SseParser((ev) => {
        this.onEvent?.(ev);
        if (ev.data) this.emit(JSON.parse(ev.data), ev);
      });
    }
  }
  data(chunk) {
    this.bytes += chunk.length;
    if (this.sse) this.parser.push(chunk);
    else this.chunks.push(chunk);
  }
  end() {
    if (this.sse || this.chunks.length === 0) return;
    const text = this.chunks.length === 1 ? this.chunks[0].toString() : Buffer.concat(this.chunks).toString();
    this.chunks = [];
    if (text.trim() === '') return;
    this.emit(JSON.parse(text));
  }
  emit(msg, ev) {
    if (Array.isArray(msg)) for (const m of msg) this.onMessage(m, ev);
    else this.onMessage(msg, ev);
  }
}

const isResponseTo = (m, id) => m.id === id && (m.result !== undefined || m.error !== undefined);

/** One MCP client session (or, with stateless servers, a client that never gets a session id). */
export class McpSession {
  constructor(ep) {
    this.ep = ep;
    this.sid = undefined;
    this.version = undefined;
    this.nextId = 1;
    this.headers = { 'content-type': 'application/json', accept: ACCEPT_POST };
  }

  /**
   * POST one JSON-RPC message. Resolves with {status, transport, response, tResponse, messages,
   * bytes, sessionId}; `response` is the answer to msg.id and `tResponse` the performance.now()
   * at which it arrived (before the body ended). opts: onMessage, onEvent, onController,
   * keep (keep all messages; default only the response), headers (instead of the session's).
   */
  async post(msg, opts = {}) {
    const out = {
      status: 0,
      transport: '',
      response: undefined,
      tResponse: 0,
      messages: [],
      bytes: 0,
      sessionId: undefined,
    };
    const reader = new RpcResponseReader((m, ev) => {
      if (opts.keep) out.messages.push(m);
      if (msg.id !== undefined && isResponseTo(m, msg.id)) {
        out.response = m;
        out.tResponse = performance.now();
      }
      opts.onMessage?.(m, ev);
    }, opts.onEvent);
    const { status, headers } = await exchange(
      this.ep,
      'POST',
      opts.headers ?? this.headers,
      JSON.stringify(msg),
      {
        onController: opts.onController,
        onStart: (s, h) => reader.start(s, h),
        onData: (c) => reader.data(c),
      },
    );
    if (status >= 200 && status < 300) reader.end();
    else if (reader.chunks.length) {
      // keep error bodies for diagnostics
      try {
        out.response = JSON.parse(Buffer.concat(reader.chunks).toString());
      } catch {
        /* not JSON */
      }
    }
    out.status = status;
    out.transport = reader.sse ? 'sse' : reader.contentType ? 'json' : 'none';
    out.bytes = reader.bytes;
    out.sessionId = headers['mcp-session-id'];
    return out;
  }

  request(method, params, opts) {
    return this.post({ jsonrpc: '2.0', id: this.nextId++, method, params }, opts);
  }

  notify(method, params) {
    return this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  callTool(name, args, opts = {}) {
    const params = { name, arguments: args };
    if (opts.meta) params._meta = opts.meta;
    return this.request('tools/call', params, opts);
  }

  /** initialize + notifications/initialized. Adopts the session id and negotiated version. */
  async initialize(clientName = 'mcp-bench') {
    const r = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '0.1.0' },
    });
    if (r.status !== 200 || !r.response?.result) {
      throw new Error(
        `initialize failed: HTTP ${r.status} ${JSON.stringify(r.response?.error ?? r.response ?? '')}`,
      );
    }
    this.sid = r.sessionId;
    this.version = r.response.result.protocolVersion;
    this.headers = { ...this.headers, 'mcp-protocol-version': this.version };
    if (this.sid) this.headers['mcp-session-id'] = this.sid;
    const n = await this.notify('notifications/initialized');
    if (n.status !== 202 && n.status !== 200) throw new Error(`notifications/initialized: HTTP ${n.status}`);
    return r;
  }

  /** A stateless client: no initialize round trip, just the protocol-version header. */
  assumeStateless(version = PROTOCOL_VERSION) {
    this.version = version;
    this.headers = { ...this.headers, 'mcp-protocol-version': version };
  }

  /**
   * A modern (2026-07-28) client: no initialize, no session. Each request carries the envelope (version,
   * capabilities, client info) in `params._meta`, and the headers that mirror it (see `modernCallTool`).
   */
  assumeModern(clientName = 'mcp-bench') {
    this.version = MODERN_VERSION;
    this.headers = { ...this.headers, 'mcp-protocol-version': MODERN_VERSION };
    this.envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: clientName, version: '0.1.0' },
    };
    this.toolHeaders = new Map();
  }

  /**
   * tools/call the modern way (after `assumeModern`): the envelope in `_meta`, `Mcp-Method` and `Mcp-Name`
   * beside `MCP-Protocol-Version`. The headers are built once per tool name, so a call costs the client
   * what a legacy one does. Names are sent as they are: the bench's tools have plain ASCII names, which
   * need none of the spec's base64 encoding.
   */
  modernCallTool(name, args, opts = {}) {
    let headers = this.toolHeaders.get(name);
    if (!headers) {
      headers = { ...this.headers, 'mcp-method': 'tools/call', 'mcp-name': name };
      this.toolHeaders.set(name, headers);
    }
    const params = { name, arguments: args, _meta: this.envelope };
    return this.post(
      { jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params },
      { ...opts, headers },
    );
  }

  /**
   * GET an SSE stream (the standalone stream, or a resume with lastEventId). Returns
   * {ready, done, abort}: `ready` resolves with {status, headers} once response headers arrive,
   * `done` when the stream ends (rejects if aborted), abort() drops the connection.
   */
  openStream({ lastEventId, onEvent, onMessage } = {}) {
    const headers = { accept: 'text/event-stream' };
    if (this.sid) headers['mcp-session-id'] = this.sid;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    let ctl;
    let aborted = false;
    let onReady;
    const ready = new Promise((r) => {
      onReady = r;
    });
    const parser = new SseParser((ev) => {
      onEvent?.(ev);
      if (ev.data && onMessage) onMessage(JSON.parse(ev.data), ev);
    });
    const done = exchange(this.ep, 'GET', headers, null, {
      onController: (c) => {
        ctl = c;
        if (aborted) c.abort(new Error('closed by harness'));
      },
      onStart: (status, h) => onReady({ status, headers: h }),
      onData: (chunk) => parser.push(chunk),
    });
    done.then(
      (r) => onReady(r),
      (err) => onReady({ status: 0, error: err }),
    );
    return {
      ready,
      done,
      parser,
      abort: () => {
        aborted = true;
        ctl?.abort(new Error('closed by harness'));
      },
    };
  }

  /** DELETE the session (best effort). Resolves with the HTTP status. */
  async close() {
    if (!this.sid) return 0;
    const { status } = await exchange(
      this.ep,
      'DELETE',
      {
        'mcp-session-id': this.sid,
        'mcp-protocol-version': this.version ?? PROTOCOL_VERSION,
      },
      null,
    );
    return status;
  }
}
