// The client for any runtime with fetch, streams and Web Crypto (a web page, Node, Deno, workers): what
// `mcpwire/browser` exports and `mcpwire/client` adds stdio to. Nothing here may import a `node:` module or
// read `process` (test/browser/bundle.test.ts holds it to that).

// The client and its session, both eras
export { ErrorCode, McpError } from '../jsonrpc/errors.js';
export type { Connection, MessageInfo, Receiver } from '../peer/connection.js';
export {
  CapabilityError,
  ConnectionClosedError,
  InvalidResponseError,
  RequestCancelledError,
  RequestTimeoutError,
  ResponseLostError,
  SessionExpiredError,
} from '../peer/errors.js';
export { createMemoryPair } from '../peer/memory.js';
export type { PeerOptions, Progress, RequestOptions } from '../peer/peer-options.js';
// The protocol's own types, both eras
export type * from '../protocol/public-types.js';
export type { EventLogger } from '../telemetry/log-sink.js';
export type { OpenTelemetryOptions, TelemetryOptions } from '../telemetry/resolve.js';
export type { Clock } from '../util/clock.js';
export {
  Client,
  type ClientConnectOptions,
  type ClientOptions,
  type FormElicitationHandler,
  type RootsHandler,
  type SamplingHandler,
  type UrlElicitationHandler,
} from './client.js';
export { type ClientContext, ClientSession } from './client-session.js';
export { applyElicitationDefaults } from './elicitation-defaults.js';
export type { Listener } from './events.js';
// Reaching a server over HTTP: negotiation, and each connection on its own
export { SessionLostError, StreamableHTTPError } from './http/http-client-errors.js';
export {
  ModernHTTPClientConnection,
  type ModernHTTPClientOptions,
} from './http/modern-http-client-connection.js';
export {
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from './http/streamable-http-client-connection.js';
export { type ConnectUrlOptions, connectUrl, type UrlTransport } from './negotiation/connect-url.js';
export type { AuthorizationServerMetadata, ProtectedResourceMetadata } from './oauth/metadata.js';
export {
  OAuthClient,
  type OAuthClientInformation,
  type OAuthState,
  type OAuthStore,
  type OAuthTokens,
} from './oauth/oauth-client.js';
export type { OAuthClientOptions } from './oauth/oauth-client-options.js';
export { OAuthError } from './oauth/oauth-error.js';
export type { ApplicationType } from './oauth/registration.js';
export type { ClientKey } from './oauth/token-auth.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export { InvalidServerResultError } from './server-result.js';
export type { EraVerdict, ServerDescription } from './session-era.js';
export type { ClientSessionEvents } from './session-events.js';
export { SSEClientConnection, type SSEClientOptions } from './sse/sse-client-connection.js';
export { SSEClientError, type SSEClientErrorKind } from './sse/sse-client-errors.js';
export {
  type ClientTaskOptions,
  type Task,
  TaskCancelledError,
  type TaskError,
  type TaskRequestOptions,
  type TaskStart,
  type TaskStatus,
} from './task-types.js';
export { ClientTasks, type TaskListPage } from './tasks.js';
