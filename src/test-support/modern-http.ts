import { MetaKey } from '../protocol/envelope.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { FIRST_MODERN_VERSION } from '../protocol/versions.js';
import { post } from './mcp-http.js';

/** What a modern request carries besides its method and params: its envelope and its mirrored headers. */
export interface ModernOptions {
  /** `_meta` keys set on top of (or, when undefined, removed from) the default envelope. */
  meta?: Record<string, unknown>;
  capabilities?: ClientCapabilities;
  /** Headers set on top of (or, when undefined, removed from) the mirrored ones. */
  headers?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

/** A 2026-07-28 request (a notification when `id` is undefined) with a valid `_meta` envelope. */
export function modernMessage(
  id: number | string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernOptions = {},
) {
  const meta: Record<string, unknown> = {
    [MetaKey.ProtocolVersion]: FIRST_MODERN_VERSION,
    [MetaKey.ClientCapabilities]: options.capabilities ?? {},
    ...options.meta,
  };
  for (const key of Object.keys(meta)) if (meta[key] === undefined) delete meta[key];
  const message: Record<string, unknown> = { jsonrpc: '2.0', method, params: { ...params, _meta: meta } };
  if (id !== undefined) message.id = id;
  return message;
}

/** The headers a correct modern client sends with `method` (and `Mcp-Name` when given), plus `extra`. */
export function modernHeaders(
  method: string,
  name?: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'mcp-protocol-version': FIRST_MODERN_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...extra,
  };
  for (const key of Object.keys(headers)) if (headers[key] === undefined) delete headers[key];
  return headers as Record<string, string>;
}

/** POSTs one modern request with its mirrored headers; `Mcp-Name` comes from params.name, uri or taskId. */
export function postModern(
  url: string,
  id: number | string | undefined,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernOptions = {},
): Promise<Response> {
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  return post(url, modernMessage(id, method, params, options), {
    headers: modernHeaders(method, typeof name === 'string' ? name : undefined, options.headers),
    signal: options.signal,
  });
}
