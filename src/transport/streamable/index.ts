export { SessionLostError, StreamableHTTPError } from './client-errors.js';
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from './client-transport.js';
export { StreamableServerConn } from './conn.js';
export {
  HTTPRejectionError,
  RenumberedEventError,
  StreamUnavailableError,
  type StreamUnavailableReason,
} from './errors.js';
export { StreamableHTTPHandler } from './handler.js';
export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETRY_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_DEADLINE_MS,
  type ShutdownOptions,
  type StreamableHTTPOptions,
} from './handler-options.js';
export type {
  DirectoryHost,
  SessionDirectory,
  SessionReplica,
  SharedSession,
} from './session-directory.js';
export { Stream, type StreamKind } from './stream.js';
export { type SessionEndReason, StreamableServerTransport } from './transport.js';
