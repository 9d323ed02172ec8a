import type { Params } from '../jsonrpc/types.js';
import { MetaKey } from '../protocol/envelope.js';
import type { LoggingLevel } from '../protocol/types.js';
import type { Client } from './client.js';

/**
 * `params` with the modern era's `_meta` envelope (spec 2026-07-28, basic §_meta) added to whatever `_meta`
 * it had: the version this request speaks, this client's capabilities and info, and the log level when one
 * was set (without it the server sends no log messages for the request).
 */
export function withEnvelope(
  params: Params | undefined,
  client: Client,
  protocolVersion: string,
  logLevel?: LoggingLevel,
): Params {
  const meta: Record<string, unknown> = {
    ...(params?._meta as Record<string, unknown> | undefined),
    [MetaKey.ProtocolVersion]: protocolVersion,
    [MetaKey.ClientCapabilities]: client.capabilities,
    [MetaKey.ClientInfo]: client.info,
  };
  if (logLevel !== undefined) meta[MetaKey.LogLevel] = logLevel;
  return { ...params, _meta: meta };
}
