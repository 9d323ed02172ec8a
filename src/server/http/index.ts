export { SessionLostError, StreamableHTTPError } from '../../client/http/http-client-errors.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from '../../client/http/streamable-http-client-connection.js';
export {
  HTTPRejectionError,
  RenumberedEventError,
  StreamUnavailableError,
  type StreamUnavailableReason,
} from './errors.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETRY_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_DEADLINE_MS,
  type ShutdownOptions,
  type StreamableHTTPOptions,
} from './handler-options.js';
export { StreamableServerConn } from './legacy/session-conn.js';
export type {
  DirectoryHost,
  SessionDirectory,
  SessionReplica,
  SharedSession,
} from './legacy/session-directory.js';
export { type SessionEndReason, StreamableServerTransport } from './legacy/session-transport.js';
export { Stream, type StreamKind } from './legacy/stream.js';
export { StreamableHTTPHandler } from './streamable-http-handler.js';
