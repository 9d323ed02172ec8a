/**
 * MCP message types for spec revision 2025-11-25 (the experimental `tasks` utility is left out).
 * Params, results and capabilities stay open where the spec lets peers add fields.
 *
 * This file is where importers take them from; each subject has a file of its own (base-types, lifecycle-types,
 * resource-types, content-types, tool-types, prompt-types, client-feature-types), and here are the method names
 * and the tables that tie each method to its params and result.
 */

import type { EmptyResult, NotificationParams, PaginatedRequestParams, RequestParams } from './base-types.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitationCompleteNotificationParams,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
} from './client-feature-types.js';
import type {
  CancelledNotificationParams,
  InitializeRequestParams,
  InitializeResult,
  LoggingMessageNotificationParams,
  ProgressNotificationParams,
  SetLevelRequestParams,
} from './lifecycle-types.js';
import type {
  CompleteRequestParams,
  CompleteResult,
  GetPromptRequestParams,
  GetPromptResult,
  ListPromptsResult,
} from './prompt-types.js';
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceRequestParams,
  ReadResourceResult,
  ResourceUpdatedNotificationParams,
  SubscribeRequestParams,
  UnsubscribeRequestParams,
} from './resource-types.js';
import type { CallToolRequestParams, CallToolResult, ListToolsResult } from './tool-types.js';

export type {
  Annotations,
  BaseMetadata,
  Cursor,
  EmptyResult,
  Icon,
  Icons,
  Implementation,
  JsonObject,
  Meta,
  NotificationParams,
  PaginatedRequestParams,
  PaginatedResult,
  ProgressToken,
  RequestMeta,
  RequestParams,
  Result,
  Role,
} from './base-types.js';
export type {
  BooleanSchema,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitationCompleteNotificationParams,
  ElicitRequestFormParams,
  ElicitRequestParams,
  ElicitRequestURLParams,
  ElicitResult,
  EnumOption,
  EnumSchema,
  LegacyTitledEnumSchema,
  ListRootsResult,
  ModelHint,
  ModelPreferences,
  MultiSelectEnumSchema,
  NumberSchema,
  PrimitiveSchemaDefinition,
  Root,
  SamplingMessage,
  SamplingMessageContentBlock,
  SingleSelectEnumSchema,
  StringSchema,
  TitledMultiSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  ToolChoice,
  ToolResultContent,
  ToolUseContent,
  UntitledMultiSelectEnumSchema,
  UntitledSingleSelectEnumSchema,
  UrlElicitationRequiredData,
} from './client-feature-types.js';
export type {
  AudioContent,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from './content-types.js';
export {
  type CancelledNotificationParams,
  type ClientCapabilities,
  type InitializeRequestParams,
  type InitializeResult,
  LOGGING_LEVELS,
  type LoggingLevel,
  type LoggingMessageNotificationParams,
  type ProgressNotificationParams,
  type ServerCapabilities,
  type SetLevelRequestParams,
} from './lifecycle-types.js';
export type {
  CompleteRequestParams,
  CompleteResult,
  GetPromptRequestParams,
  GetPromptResult,
  ListPromptsResult,
  Prompt,
  PromptArgument,
  PromptMessage,
  PromptReference,
  ResourceTemplateReference,
} from './prompt-types.js';
export type {
  BlobResourceContents,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceRequestParams,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceRequestParams,
  ResourceTemplate,
  ResourceUpdatedNotificationParams,
  SubscribeRequestParams,
  TextResourceContents,
  UnsubscribeRequestParams,
} from './resource-types.js';
export type {
  CallToolRequestParams,
  CallToolResult,
  ListToolsResult,
  ObjectSchema,
  Tool,
  ToolAnnotations,
  ToolExecution,
} from './tool-types.js';

/** Method names of every MCP request and notification, so code never spells them twice. */
export const Method = {
  // Requests, client to server.
  Initialize: 'initialize',
  Ping: 'ping',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  ResourcesList: 'resources/list',
  ResourcesTemplatesList: 'resources/templates/list',
  ResourcesRead: 'resources/read',
  ResourcesSubscribe: 'resources/subscribe',
  ResourcesUnsubscribe: 'resources/unsubscribe',
  PromptsList: 'prompts/list',
  PromptsGet: 'prompts/get',
  CompletionComplete: 'completion/complete',
  /** Modern era: what the server serves, instead of initialize. */
  ServerDiscover: 'server/discover',
  /** Modern era: a stream of the list changes and resource updates the client asked for. */
  SubscriptionsListen: 'subscriptions/listen',
  LoggingSetLevel: 'logging/setLevel',
  // Requests, server to client.
  SamplingCreateMessage: 'sampling/createMessage',
  ElicitationCreate: 'elicitation/create',
  RootsList: 'roots/list',
  // Notifications, either direction.
  Cancelled: 'notifications/cancelled',
  Progress: 'notifications/progress',
  // Notifications, client to server.
  Initialized: 'notifications/initialized',
  RootsListChanged: 'notifications/roots/list_changed',
  // Notifications, server to client.
  LoggingMessage: 'notifications/message',
  ResourceUpdated: 'notifications/resources/updated',
  ResourceListChanged: 'notifications/resources/list_changed',
  ToolListChanged: 'notifications/tools/list_changed',
  PromptListChanged: 'notifications/prompts/list_changed',
  ElicitationComplete: 'notifications/elicitation/complete',
  /** Modern era: the first message of a listen stream, with the honoured filter. */
  SubscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
} as const;

/** Any MCP method name known to this library. */
export type Method = (typeof Method)[keyof typeof Method];

// ---- Method tables ----

/** Requests a client sends (a server handles): method → params and result. */
export interface ClientRequests {
  [Method.Initialize]: { params: InitializeRequestParams; result: InitializeResult };
  [Method.Ping]: { params: RequestParams | undefined; result: EmptyResult };
  [Method.ToolsList]: { params: PaginatedRequestParams | undefined; result: ListToolsResult };
  [Method.ToolsCall]: { params: CallToolRequestParams; result: CallToolResult };
  [Method.ResourcesList]: { params: PaginatedRequestParams | undefined; result: ListResourcesResult };
  [Method.ResourcesTemplatesList]: {
    params: PaginatedRequestParams | undefined;
    result: ListResourceTemplatesResult;
  };
  [Method.ResourcesRead]: { params: ReadResourceRequestParams; result: ReadResourceResult };
  [Method.ResourcesSubscribe]: { params: SubscribeRequestParams; result: EmptyResult };
  [Method.ResourcesUnsubscribe]: { params: UnsubscribeRequestParams; result: EmptyResult };
  [Method.PromptsList]: { params: PaginatedRequestParams | undefined; result: ListPromptsResult };
  [Method.PromptsGet]: { params: GetPromptRequestParams; result: GetPromptResult };
  [Method.CompletionComplete]: { params: CompleteRequestParams; result: CompleteResult };
  [Method.LoggingSetLevel]: { params: SetLevelRequestParams; result: EmptyResult };
}

/** Requests a server sends (a client handles): method → params and result. */
export interface ServerRequests {
  [Method.Ping]: { params: RequestParams | undefined; result: EmptyResult };
  [Method.SamplingCreateMessage]: { params: CreateMessageRequestParams; result: CreateMessageResult };
  [Method.ElicitationCreate]: { params: ElicitRequestParams; result: ElicitResult };
  [Method.RootsList]: { params: RequestParams | undefined; result: ListRootsResult };
}

/** Notifications a client sends: method → params. */
export interface ClientNotifications {
  [Method.Initialized]: NotificationParams | undefined;
  [Method.Cancelled]: CancelledNotificationParams;
  [Method.Progress]: ProgressNotificationParams;
  [Method.RootsListChanged]: NotificationParams | undefined;
}

/** Notifications a server sends: method → params. */
export interface ServerNotifications {
  [Method.Cancelled]: CancelledNotificationParams;
  [Method.Progress]: ProgressNotificationParams;
  [Method.LoggingMessage]: LoggingMessageNotificationParams;
  [Method.ResourceUpdated]: ResourceUpdatedNotificationParams;
  [Method.ResourceListChanged]: NotificationParams | undefined;
  [Method.ToolListChanged]: NotificationParams | undefined;
  [Method.PromptListChanged]: NotificationParams | undefined;
  [Method.ElicitationComplete]: ElicitationCompleteNotificationParams;
}
