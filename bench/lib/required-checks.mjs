// What the spec asks a server to check of every POST, written as plainly as it can be: the floor of a server
// that serves MCP correctly, for `ceiling.mjs --checks`. Beside the plain ceiling it says what the checks
// themselves cost; beside mcpwire, what its shape costs beyond them. Each check answers a refusal
// ({ status, code, message }) or undefined; none of them is mcpwire's code.
import Ajv from 'ajv';

/** The 2025 era's versions; a 2026-07-28 request names its own (ceiling.mjs --modern checks it). */
export const VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
const METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized']);
const MAX_BODY_BYTES = 4 * 1024 * 1024;

// The bench server's tools, with the same input schemas (bench/server.mjs), compiled once.
const ajv = new Ajv({ strict: false, validateFormats: false, addUsedSchema: false });
const INPUTS = {
  echo: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  blob: {
    type: 'object',
    properties: { size: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024 } },
    required: ['size'],
  },
  broadcast: { type: 'object', properties: { nonce: { type: 'string' } }, required: ['nonce'] },
  gc: { type: 'object', properties: {} },
};
const validators = new Map(Object.entries(INPUTS).map(([name, schema]) => [name, ajv.compile(schema)]));

const refusal = (status, code, message) => ({ status, code, message });
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The HTTP checks, before the body is read: DNS rebinding (Host, Origin), the media types, the version. */
export function checkHead(req, port, versions) {
  const h = req.headers;
  if (h.host !== `127.0.0.1:${port}` && h.host !== `localhost:${port}`) return refusal(403, -32000, 'Host');
  const origin = h.origin;
  if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`)
    return refusal(403, -32000, 'Origin');
  if (!h['content-type']?.startsWith('application/json')) return refusal(415, -32000, 'Content-Type');
  const accept = h.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return refusal(406, -32000, 'Accept');
  const version = h['mcp-protocol-version'];
  if (version !== undefined && !versions.has(version)) return refusal(400, -32000, 'MCP-Protocol-Version');
  return undefined;
}

/** The body's size, counted as it is read. */
export const tooLarge = (bytes) => bytes > MAX_BODY_BYTES;

/** The JSON-RPC shape of one message, and the params of the methods the bench calls. */
export function checkMessage(msg) {
  if (!isObject(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string')
    return refusal(400, -32600, 'Invalid Request');
  const id = msg.id;
  if (id !== undefined && typeof id !== 'string' && !Number.isInteger(id))
    return refusal(400, -32600, 'Invalid Request: id');
  if (msg.params !== undefined && !isObject(msg.params))
    return refusal(400, -32600, 'Invalid Request: params');
  if (!METHODS.has(msg.method)) return refusal(200, -32601, 'Method not found');
  const params = msg.params;
  if (msg.method === 'initialize') {
    if (
      typeof params?.protocolVersion !== 'string' ||
      !isObject(params.capabilities) ||
      !isObject(params.clientInfo) ||
      typeof params.clientInfo.name !== 'string' ||
      typeof params.clientInfo.version !== 'string'
    )
      return refusal(200, -32602, 'Invalid params');
  } else if (msg.method === 'tools/call') {
    if (typeof params?.name !== 'string') return refusal(200, -32602, 'Invalid params: name');
    if (params.arguments !== undefined && !isObject(params.arguments))
      return refusal(200, -32602, 'Invalid params: arguments');
    const validate = validators.get(params.name);
    if (validate === undefined) return refusal(200, -32602, 'Unknown tool');
    if (!validate(params.arguments ?? {})) return refusal(200, -32602, 'Invalid arguments');
  }
  return undefined;
}

/** The version a session speaks: the client's when served, else the latest. */
export const negotiate = (requested) => (VERSIONS.has(requested) ? requested : '2025-11-25');
