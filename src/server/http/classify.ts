import { ErrorCode } from '../../jsonrpc/errors.js';
import type { Parsed } from '../../jsonrpc/parse.js';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import { claimsModern, MetaKey } from '../../protocol/envelope.js';
import { Method } from '../../protocol/types.js';
import { eraOf } from '../../protocol/versions.js';

/** What a POST is, decided once at the entry: a legacy message or batch, a modern message, or refused. */
export type PostEra =
  | { era: 'legacy' }
  | { era: 'modern'; message: JsonRpcRequest | JsonRpcNotification }
  | { era: 'refused'; status: number; code: number; message: string; id: RequestId | null; data?: unknown };

const LEGACY: PostEra = Object.freeze({ era: 'legacy' });

/**
 * The era of a POST (spec 2026-07-28, versioning: a dual-era server selects by how the client opens). The
 * body decides: a request or notification whose `_meta` claims a protocol version is modern, whatever the
 * version says; the `MCP-Protocol-Version` header only cross-checks: a claim-less body sent with a modern
 * header is refused (-32602, its envelope is missing; initialize: -32020), not served as legacy. Everything
 * else (initialize, requests of a session, posted responses, batches) is legacy; a batch may not carry a
 * modern message (a modern body is one message). A response sent with a modern header answers nothing: refused.
 */
export function classifyPost(
  body: Exclude<Parsed, { kind: 'invalid' }>,
  versionHeader: string | undefined,
): PostEra {
  if (body.kind === 'batch') {
    const modern = body.messages.find(claimsModern);
    if (modern === undefined) return LEGACY;
    return {
      era: 'refused',
      status: 400,
      code: ErrorCode.InvalidRequest,
      message: 'Invalid request: a 2026-07-28 request must be sent alone, not in a batch',
      id: null,
    };
  }
  const message = body.message;
  if (!('method' in message)) {
    if (versionHeader === undefined || eraOf(versionHeader) !== 'modern') return LEGACY;
    return {
      era: 'refused',
      status: 400,
      code: ErrorCode.InvalidRequest,
      message:
        `Invalid request: a JSON-RPC response was POSTed with MCP-Protocol-Version ${JSON.stringify(versionHeader.slice(0, 100))}, ` +
        'but from 2026-07-28 on a server sends no requests (it asks through input_required results), so a client ' +
        'has nothing to answer; POST requests and notifications only',
      id: null,
    };
  }
  if (claimsModern(message)) return { era: 'modern', message };
  if (versionHeader === undefined || eraOf(versionHeader) === 'legacy') return LEGACY;
  const id = 'id' in message ? message.id : null;
  if (message.method === Method.Initialize) {
    return {
      era: 'refused',
      status: 400,
      code: ErrorCode.HeaderMismatch,
      message: `Bad Request: initialize starts a 2025 session, but MCP-Protocol-Version is ${JSON.stringify(versionHeader.slice(0, 100))}; send a 2025 version in the header, or no initialize at all in 2026-07-28`,
      id,
    };
  }
  return {
    era: 'refused',
    status: 400,
    code: ErrorCode.InvalidParams,
    message: `Invalid _meta envelope for protocol revision ${versionHeader.slice(0, 100)}: ${MetaKey.ProtocolVersion}: missing (a request sent with a 2026 MCP-Protocol-Version header must carry the envelope)`,
    id,
    data: { envelope: { key: MetaKey.ProtocolVersion, problem: 'missing' } },
  };
}
