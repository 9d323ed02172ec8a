// `mcpwire/browser`: the client for a web page (or any runtime with fetch, streams and Web Crypto). The
// client, the three HTTP client transports, connectUrl and OAuthClient, with the errors and types they use,
// and nothing that imports a `node:` module or reads `process` (test/browser/bundle.test.ts holds it to that).
// Node programs may import it too; `mcpwire/client` and `mcpwire/transport` add stdio and the servers.

export { SessionLostError, StreamableHTTPError } from './client/http/http-client-errors.js';
export {
  ModernHTTPClientConnection,
  type ModernHTTPClientOptions,
} from './client/http/modern-http-client-connection.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from './client/http/streamable-http-client-connection.js';
export * from './client/index.js';
export { type ConnectUrlOptions, connectUrl, type UrlTransport } from './client/negotiation/connect-url.js';
export * from './client/oauth/client-api.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, retryPolicy } from './client/retry-policy.js';
export * from './client/sse/sse-client-connection.js';
export * from './client/sse/sse-client-errors.js';
export * from './jsonrpc/errors.js';
export type * from './jsonrpc/types.js';
export type { Connection, Receiver } from './peer/connection.js';
export * from './peer/errors.js';
export type { PeerOptions, Progress, RequestOptions } from './peer/jsonrpc-peer.js';
export type * from './protocol/modern-types.js';
export type * from './protocol/types.js';
export { type Clock, systemClock } from './util/clock.js';
