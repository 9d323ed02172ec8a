// The errors a client's calls reject with, exported where the client is imported from; the transports'
// own (StreamableHTTPError, SessionLostError, SSEClientError, OAuthError, StdioProcessError) come with the
// transports, from `mcpwire/transport`.
export { ErrorCode, McpError } from '../jsonrpc/errors.js';
export {
  CapabilityError,
  ConnectionClosedError,
  RequestCancelledError,
  RequestTimeoutError,
  ResponseLostError,
  SessionExpiredError,
} from '../peer/errors.js';
export type { EventLogger, OpenTelemetryOptions, TelemetryOptions } from '../telemetry/index.js';
export {
  Client,
  type ClientConnectOptions,
  type ClientOptions,
  type FormElicitationHandler,
  type SamplingHandler,
  type UrlElicitationHandler,
} from './client.js';
export { type ClientContext, ClientSession, type ClientSessionEvents } from './client-session.js';
export { applyElicitationDefaults } from './elicitation-defaults.js';
export type { Listener } from './events.js';
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
