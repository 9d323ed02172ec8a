// `mcpwire/server`: everything a server author needs, named one by one: the `Server` definition and what its
// handlers see and throw, the transports that serve it (stdio, Streamable HTTP in both eras, the 2024-11-05
// HTTP+SSE endpoint), who may call them (OAuth's resource-server side, or bearer tokens given out by hand), and the
// in-memory stores with the contracts a store of your own implements. The Redis pieces are in `mcpwire/cluster`.

// Node: the transports find `@opentelemetry/api` where it is installed (see src/telemetry/node.ts).
import '../telemetry/node.js';

export {
  EventsPurgedError,
  StreamClosedError,
  UnknownEventError,
  UnknownStreamError,
} from '../eventstore/errors.js';
// Stores: the in-memory ones, and the contracts a store of your own keeps
export type { EventStore, Replay, StreamAppender } from '../eventstore/event-store.js';
export { MemoryEventStore, type MemoryEventStoreOptions } from '../eventstore/memory-event-store.js';
export { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
export { type BearerToken, BearerTokens } from '../http/bearer-tokens.js';
export type { CorsOptions } from '../http/cors.js';
export type { EndpointAuth } from '../http/endpoint-auth.js';
export { type IntrospectionOptions, introspectionVerifier } from '../http/introspection-verifier.js';
export { type JwtVerifierOptions, jwtVerifier } from '../http/jwt-verifier.js';
export type { NodeListener } from '../http/node-adapter.js';
export {
  ProtectedResource,
  type ProtectedResourceOptions,
  type Refusal,
  type TokenGrant,
  type TokenVerifier,
} from '../http/protected-resource.js';
// The definition and its handlers
export { ErrorCode, McpError } from '../jsonrpc/errors.js';
export type { Connection, MessageInfo, Receiver } from '../peer/connection.js';
export {
  CapabilityError,
  ConnectionClosedError,
  InvalidResponseError,
  RequestCancelledError,
  RequestTimeoutError,
} from '../peer/errors.js';
// Serving it: stdio, Streamable HTTP (both eras), HTTP+SSE for 2024-11-05 clients, any Connection
export { createMemoryPair } from '../peer/memory.js';
export type { Progress } from '../peer/peer-options.js';
// The protocol's own types, both eras
export type * from '../protocol/public-types.js';
export { TaskLimitError, TaskStoreFullError } from '../tasks/errors.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from '../tasks/memory-task-store.js';
export type {
  NewTask,
  TaskChange,
  TaskPage,
  TaskRecord,
  TaskSignal,
  TaskStore,
} from '../tasks/task-store.js';
export type { EventLogger } from '../telemetry/log-sink.js';
export type { OpenTelemetryOptions, TelemetryOptions } from '../telemetry/resolve.js';
export { type Access, type Caller, ScopeError } from './access.js';
export { InvalidClientAnswerError } from './client-answer.js';
export type { ClientScope } from './client-scope.js';
export type { Completer, CompletionArguments } from './completion.js';
export type { ServerContext } from './context.js';
export { HTTPRejectionError, RenumberedEventError, StreamUnavailableError } from './http/errors.js';
export type { ShutdownOptions, StreamableHTTPOptions } from './http/handler-options.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http/handler-options.js';
export { StreamableHTTPHandler } from './http/streamable-http-handler.js';
export { InputRequired, inputRequired } from './input-required.js';
export type { ServerSession } from './legacy/server-session.js';
export {
  afterToolCall,
  beforeToolCall,
  type Middleware,
  type MiddlewareAnswer,
  type MiddlewareCall,
  type ToolCall,
} from './middleware.js';
export { RoundEndedError } from './modern/modern-call.js';
export type { RequestStateKey } from './modern/request-state.js';
export type {
  PromptArgName,
  PromptArgs,
  PromptArgumentDef,
  PromptArgumentList,
  PromptCompleters,
} from './prompt-args.js';
export type { GetPrompt, PromptDef, PromptUpdate } from './prompts.js';
export type {
  ReadResource,
  ResourceDef,
  ResourceTemplateCallbacks,
  ResourceTemplateDef,
  ResourceTemplateUpdate,
  ResourceUpdate,
} from './resources.js';
export type { JsonSchemaObject, SchemaInput, StandardSchemaV1, ValidationOutcome } from './schema.js';
export type { ServeDeployment } from './serve-deployment.js';
export {
  type PromptHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  Server,
  type ServerConnectOptions,
  type ToolHandle,
} from './server.js';
export type { ServerEvent, ServerEventListener } from './server-events.js';
export type { CacheHints, ServerOptions } from './server-options.js';
export type { SharedSessions } from './shared-sessions.js';
export { LegacySSEHandler, type LegacySSEHandlerOptions } from './sse/legacy-sse-handler.js';
export { type StdioServeOptions, type StdioService, serveStdio } from './stdio/serve-stdio.js';
export type { TaskOptions } from './tasks/task-options.js';
export type { ToolArgs, ToolDef, ToolHandler, ToolResult, ToolUpdate } from './tools.js';
export { UriTemplate, type UriTemplateMatch, type UriTemplateVariables } from './uri-template.js';
