// What a handler throws to choose its error (McpError, ErrorCode), and what its calls back to the client
// (ctx.elicit, ctx.createMessage, ctx.listRoots) reject with.
export { ErrorCode, McpError } from '../jsonrpc/errors.js';
export {
  CapabilityError,
  ConnectionClosedError,
  RequestCancelledError,
  RequestTimeoutError,
} from '../peer/errors.js';
export type { EventLogger, OpenTelemetryOptions, TelemetryOptions } from '../telemetry/index.js';
export { InvalidClientAnswerError } from './client-answer.js';
export type { ClientScope } from './client-scope.js';
export type { Completer, CompletionArguments } from './completion.js';
export type { ServerContext } from './context.js';
export { InputRequired, inputRequired } from './input-required.js';
export { type PreinitializedState, ServerSession } from './legacy/server-session.js';
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
export type { Handle } from './registry.js';
export type {
  ReadResource,
  ResourceDef,
  ResourceTemplateCallbacks,
  ResourceTemplateDef,
  ResourceTemplateUpdate,
  ResourceUpdate,
} from './resources.js';
export {
  type CompiledSchema,
  compilePromptArguments,
  compileSchema,
  type JsonSchemaObject,
  type SchemaInput,
  type StandardSchemaV1,
  type ValidationOutcome,
} from './schema.js';
export {
  type CacheHints,
  type PromptHandle,
  type ResourceHandle,
  type ResourceTemplateHandle,
  Server,
  type ServerConnectOptions,
  type ServerOptions,
  type SharedSessions,
  type ToolHandle,
} from './server.js';
export type { ServerEvent, ServerEventListener } from './server-events.js';
export type { TaskOptions } from './tasks/task-options.js';
export type { ToolArgs, ToolDef, ToolHandler, ToolResult, ToolUpdate } from './tools.js';
export { UriTemplate, type UriTemplateMatch, type UriTemplateVariables } from './uri-template.js';
