// `mcpwire/browser`: the client for a web page (or any runtime with fetch, streams and Web Crypto). The
// client, the three HTTP client transports, connectUrl and OAuthClient, with the errors and types they use,
// and nothing that imports a `node:` module or reads `process` (test/browser/bundle.test.ts holds it to that).
// Node programs may import it too; `mcpwire/client` and `mcpwire/transport` add stdio and the servers.
export * from './client/index.js';
export * from './jsonrpc/errors.js';
export type * from './jsonrpc/types.js';
export type * from './protocol/modern-types.js';
export type * from './protocol/types.js';
export { type Clock, systemClock } from './session/clock.js';
export type { Connection, Receiver } from './session/connection.js';
export * from './session/errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, retryPolicy } from './session/retry-policy.js';
export type { Progress, RequestOptions, SessionOptions } from './session/session.js';
export { type ConnectUrlOptions, connectUrl, type UrlTransport } from './transport/connect-url.js';
export * from './transport/oauth/client-api.js';
export * from './transport/sse/client.js';
export * from './transport/sse/client-errors.js';
export { SessionLostError, StreamableHTTPError } from './transport/streamable/client-errors.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from './transport/streamable/client-transport.js';
export {
  ModernHTTPClientConnection,
  type ModernHTTPClientOptions,
} from './transport/streamable/modern/client-connection.js';
