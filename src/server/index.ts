export type { EventLogger, OpenTelemetryOptions, TelemetryOptions } from '../telemetry/index.js';
export type { ClientScope } from './client-scope.js';
export type { Completer } from './completion.js';
export type { ServerContext } from './context.js';
export { InputRequired, inputRequired } from './input-required.js';
export type { GetPrompt, PromptArgumentDef, PromptDef, PromptUpdate } from './prompts.js';
export type { Handle } from './registry.js';
export type { RequestStateKey } from './request-state.js';
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
export { type PreinitializedState, ServerSession } from './server-session.js';
export type { ToolArgs, ToolDef, ToolHandler, ToolResult, ToolUpdate } from './tools.js';
export { UriTemplate, type UriTemplateMatch, type UriTemplateVariables } from './uri-template.js';
