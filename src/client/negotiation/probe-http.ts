import { createParser } from 'eventsource-parser';
import { McpError } from '../../jsonrpc/errors.js';
import { serialize } from '../../jsonrpc/serialize.js';
import { Method } from '../../protocol/types.js';
import type { Client } from '../client.js';
import { StreamableHTTPError } from '../http/http-client-errors.js';
import { excerpt, lowerCased, reason, serverMessage } from '../http/http-replies.js';
import { withEnvelope } from '../request-envelope.js';
import { type ProbeOutcome, readDiscover, readDiscoverError } from './probe.js';

/** What the HTTP probe needs besides the client: how to reach the server, and how long to wait. */
export interface HTTPProbeOptions {
  fetch: typeof fetch;
  headers?: Record<string, string>;
  authHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  /** How long the probe waits for an answer before taking the server for a legacy one. */
  timeout: number;
  signal?: AbortSignal;
}

/** Enough of an answer to classify it; a server that sends more is cut off here. */
const MAX_PROBE_BODY = 256 * 1024;
const PROBE_ID = 0;

/**
 * The HTTP half of the dual-era probe (spec 2026-07-28, Streamable HTTP §Backward Compatibility): POSTs
 * `server/discover` with the envelope and the headers. A discover result, or a recognised modern error
 * (-32022 naming a version this client speaks, asked again with it once; -32020; -32021; -32601 with
 * 404; none of them when it lists only legacy versions: `readDiscoverError`) means modern: the first
 * resolves with how to speak to it, the others reject with the server's refusal, since a modern server
 * must not be answered with the legacy fallback. 401 and 403 reject (the fetch signs in where it can).
 * Anything else, garbage included (an empty 2xx, HTML, -32700 with a null id, a 5xx, no answer in time),
 * means legacy, with `answer` saying what came.
 */
export async function probeHTTP(
  url: string,
  client: Client,
  options: HTTPProbeOptions,
): Promise<ProbeOutcome> {
  const versions = client.modernVersions;
  let version = versions[0];
  for (let attempt = 0; ; attempt++) {
    const answer = await post(url, client, version, options);
    if (answer === SILENT)
      return { era: 'legacy', answer: `no answer within ${options.timeout} ms`, silent: true };
    if (typeof answer === 'string') return { era: 'legacy', answer };
    const { status, message } = answer;
    if (message.result !== undefined) {
      const start = readDiscover(message.result, versions);
      return typeof start === 'string'
        ? { era: 'legacy', answer: `HTTP ${status} with ${start}` }
        : { era: 'modern', start };
    }
    const error = message.error!;
    const said = `HTTP ${status} with JSON-RPC error ${error.code} "${error.message}"`;
    const meaning = readDiscoverError(error, status, versions, attempt);
    if (typeof meaning === 'object') {
      version = meaning.retryWith;
      continue;
    }
    if (meaning === 'refused') {
      throw new McpError(
        error.code,
        `${url} speaks the 2026-07-28 era or later but refused server/discover (${said}); not falling back to ` +
          'the legacy transports, which such a server does not serve',
        error.data,
      );
    }
    return { era: 'legacy', answer: said };
  }
}

interface Answer {
  status: number;
  message: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}

/** What `post` gives when nothing came in time. */
const SILENT = Symbol('silent');

/** One discover POST: the JSON-RPC answer to it, a description of whatever else came, or SILENT. */
async function post(
  url: string,
  client: Client,
  version: string,
  options: HTTPProbeOptions,
): Promise<Answer | string | typeof SILENT> {
  const headers: Record<string, string> = lowerCased(options.headers);
  if (options.authHeaders !== undefined) Object.assign(headers, lowerCased(await options.authHeaders()));
  headers.accept = 'application/json, text/event-stream';
  headers['content-type'] = 'application/json';
  headers['mcp-protocol-version'] = version;
  headers['mcp-method'] = Method.ServerDiscover;
  const body = serialize({
    jsonrpc: '2.0',
    id: PROBE_ID,
    method: Method.ServerDiscover,
    params: withEnvelope(undefined, client, version),
  });
  const timer = AbortSignal.timeout(options.timeout);
  const signal = options.signal === undefined ? timer : AbortSignal.any([timer, options.signal]);
  let response: Response;
  let text: string | undefined;
  try {
    response = await options.fetch(url, { method: 'POST', headers, body, signal });
    if (response.status !== 401 && response.status !== 403) text = await readAnswer(response);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    if (timer.aborted) return SILENT;
    if (err instanceof StreamableHTTPError) throw err;
    throw new StreamableHTTPError(
      `POST of server/discover to ${url} failed: ${reason(err)}`,
      undefined,
      undefined,
      { cause: err },
    );
  }
  if (text === undefined) {
    // A refusal, whatever its body does after: what it says is read within the timeout (the body's signal).
    throw new StreamableHTTPError(
      `HTTP ${response.status} from POST ${url} (server/discover): ${serverMessage(await excerpt(response))}`,
      response.status,
    );
  }
  const status = response.status;
  const type = response.headers.get('content-type')?.toLowerCase() ?? '';
  const message = type.includes('text/event-stream') ? firstSseResponse(text) : parseResponse(text);
  if (message === undefined) {
    const shown =
      text.trim() === ''
        ? 'an empty body'
        : `a body that is no JSON-RPC answer (${type || 'no Content-Type'})`;
    return `HTTP ${status} with ${shown}`;
  }
  if (message.id !== PROBE_ID) {
    const error = message.error;
    return error === undefined
      ? `HTTP ${status} with an answer to another request`
      : `HTTP ${status} with JSON-RPC error ${error.code} "${error.message}" (id ${JSON.stringify(message.id)})`;
  }
  return { status, message };
}

/** The body, up to MAX_PROBE_BODY; an SSE answer is read only until its first response. */
async function readAnswer(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const sse = response.headers.get('content-type')?.toLowerCase().includes('text/event-stream') ?? false;
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < MAX_PROBE_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (sse && firstSseResponse(text) !== undefined) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text;
}

type Parsed = Answer['message'] & { id?: unknown };

function parseResponse(text: string): Parsed | undefined {
  try {
    const parsed = JSON.parse(text) as Parsed & { jsonrpc?: unknown };
    if (typeof parsed !== 'object' || parsed === null || parsed.jsonrpc !== '2.0') return undefined;
    if (parsed.result !== undefined) return parsed;
    const e = parsed.error;
    if (typeof e?.code === 'number' && typeof e.message === 'string') return parsed;
  } catch {
    // not JSON: the caller says so
  }
  return undefined;
}

function firstSseResponse(text: string): Parsed | undefined {
  let found: Parsed | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (found !== undefined) return;
      const parsed = parseResponse(event.data);
      if (parsed !== undefined && (parsed.result !== undefined || parsed.error !== undefined)) found = parsed;
    },
  });
  parser.feed(text);
  return found;
}
