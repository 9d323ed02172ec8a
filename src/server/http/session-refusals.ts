import type { HTTPExchange } from '../../http/exchange.js';
import type { Refuse } from '../../http/intake.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import type { PostBody } from './legacy/session-transport.js';

// The refusals of a request for a 2025 session that this endpoint cannot serve as asked.

/** A modern-only endpoint names the versions it serves to a legacy client (spec: versioning). */
export function legacyRefused(refuse: Refuse, exchange: HTTPExchange, body: PostBody): void {
  const id = body.kind === 'message' && 'id' in body.message ? body.message.id : null;
  refuse(
    exchange,
    400,
    `Unsupported protocol version: this server serves only ${MODERN_PROTOCOL_VERSIONS.join(', ')}, with no initialize; send each request with its _meta envelope`,
    { code: ErrorCode.UnsupportedProtocolVersion, id, data: { supported: MODERN_PROTOCOL_VERSIONS } },
  );
}

/** A session's request names a version that is not a 2025 one. */
export function badVersion(refuse: Refuse, exchange: HTTPExchange, version: string): void {
  refuse(
    exchange,
    400,
    `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 100))}; ` +
      `this server supports ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
  );
}

/** A GET or DELETE on an endpoint without sessions (stateless, or 2026-07-28 only). */
export function noSessions(refuse: Refuse, exchange: HTTPExchange, stateless: boolean, what: string): void {
  refuse(
    exchange,
    405,
    `Method Not Allowed: this server ${stateless ? 'is stateless' : 'serves only 2026-07-28'} and ${what}; send messages with POST`,
    { headers: { allow: 'POST' } },
  );
}

/** A 2025 request without `Mcp-Session-Id`: a POST that is not an initialize (`post`), a GET or a DELETE. */
export function noSessionId(refuse: Refuse, exchange: HTTPExchange, post: boolean): void {
  refuse(
    exchange,
    400,
    post
      ? 'Bad Request: the Mcp-Session-Id header is required; a session starts with an initialize request sent without one'
      : 'Bad Request: the Mcp-Session-Id header is required',
  );
}

/** An initialize request that names a session: it starts one, so it must come without. */
export function initializeInSession(refuse: Refuse, exchange: HTTPExchange, id: string | number): void {
  refuse(
    exchange,
    400,
    'Bad Request: initialize must be sent without an Mcp-Session-Id header: it starts a new session',
    { code: ErrorCode.InvalidRequest, id },
  );
}
