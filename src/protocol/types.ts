/**
 * MCP message types for spec revision 2025-11-25 (the experimental `tasks` utility is left out).
 * Params, results and capabilities stay open where the spec lets peers add fields.
 */

import type { RequestId } from '../jsonrpc/types.js';

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

// ---- Base shapes ----

/** A JSON object whose members are not described further. */
export type JsonObject = { [key: string]: unknown };

/** Free-form metadata reserved by MCP under `_meta`. */
export type Meta = JsonObject;

/** Identifies a request's progress notifications; chosen by the requester. */
export type ProgressToken = string | number;

/** An opaque pagination position handed out by the server. */
export type Cursor = string;

/** `_meta` of a request: may ask for progress notifications. */
export interface RequestMeta {
  progressToken?: ProgressToken;
  [key: string]: unknown;
}

/** Fields every request's params may carry. */
export interface RequestParams {
  _meta?: RequestMeta;
}

/** Fields every notification's params may carry. */
export interface NotificationParams {
  _meta?: Meta;
}

/** Every result: open to extra fields. */
export interface Result {
  _meta?: Meta;
  [key: string]: unknown;
}

/** The answer to requests that return nothing (ping, subscribe, setLevel, ...). */
export type EmptyResult = Result;

export interface PaginatedRequestParams extends RequestParams {
  cursor?: Cursor;
}

export interface PaginatedResult extends Result {
  /** Present when more items follow; pass it back as `cursor`. */
  nextCursor?: Cursor;
}

// ---- Metadata shared by tools, resources, prompts and implementations ----

/** An image a client may display for an item; `src` is an http(s) or data: URI. */
export interface Icon {
  src: string;
  mimeType?: string;
  /** Sizes such as "48x48" or "any". */
  sizes?: string[];
  /** The UI theme the icon is drawn for. */
  theme?: 'light' | 'dark';
}

export interface Icons {
  icons?: Icon[];
}

/** `name` is the programmatic identifier; `title` the human-readable one. */
export interface BaseMetadata {
  name: string;
  title?: string;
}

/** Who a client or server is, exchanged at initialize. */
export interface Implementation extends BaseMetadata, Icons {
  version: string;
  description?: string;
  websiteUrl?: string;
}

// ---- Capabilities ----

/** What a client can do; peers may add capabilities of their own. */
export interface ClientCapabilities {
  experimental?: { [key: string]: JsonObject };
  roots?: { listChanged?: boolean; [key: string]: unknown };
  /** `tools` means the client accepts `tools`/`toolChoice` in sampling requests. */
  sampling?: { context?: JsonObject; tools?: JsonObject; [key: string]: unknown };
  /** An empty object means form mode only. */
  elicitation?: { form?: JsonObject; url?: JsonObject; [key: string]: unknown };
  [key: string]: unknown;
}

/** What a server offers; peers may add capabilities of their own. */
export interface ServerCapabilities {
  experimental?: { [key: string]: JsonObject };
  logging?: JsonObject;
  completions?: JsonObject;
  prompts?: { listChanged?: boolean; [key: string]: unknown };
  resources?: { subscribe?: boolean; listChanged?: boolean; [key: string]: unknown };
  tools?: { listChanged?: boolean; [key: string]: unknown };
  [key: string]: unknown;
}

// ---- Lifecycle ----

export interface InitializeRequestParams extends RequestParams {
  /** The latest version the client supports. */
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

export interface InitializeResult extends Result {
  /** The version the session will speak; the client disconnects if it cannot. */
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  /** Hints on how to use the server, e.g. for a system prompt. */
  instructions?: string;
}

// ---- Utilities: cancellation, progress, logging ----

export interface CancelledNotificationParams extends NotificationParams {
  /** The request to cancel, issued earlier in the same direction. */
  requestId?: RequestId;
  reason?: string;
}

export interface ProgressNotificationParams extends NotificationParams {
  progressToken: ProgressToken;
  /** Grows with every notification, even when `total` is unknown. */
  progress: number;
  total?: number;
  message?: string;
}

/** Syslog severities (RFC 5424), least severe first. */
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/** Every logging level in increasing severity: a message passes a filter when its index is >= the filter's. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export interface SetLevelRequestParams extends RequestParams {
  /** The least severe level the client wants to receive. */
  level: LoggingLevel;
}

export interface LoggingMessageNotificationParams extends NotificationParams {
  level: LoggingLevel;
  logger?: string;
  /** Any JSON value: a string or an object. */
  data: unknown;
}

// ---- Content ----

export type Role = 'user' | 'assistant';

/** Hints on how a client should use or show an object. */
export interface Annotations {
  audience?: Role[];
  /** 0 (least important) to 1 (most important). */
  priority?: number;
  /** ISO 8601 timestamp. */
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ImageContent {
  type: 'image';
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface AudioContent {
  type: 'audio';
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A pointer to a resource the client may read; not necessarily listed by resources/list. */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}

/** A resource's contents carried inline. */
export interface EmbeddedResource {
  type: 'resource';
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

/** Content in tool results and prompt messages. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

// ---- Resources ----

export interface Resource extends BaseMetadata, Icons {
  uri: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  /** Size in bytes before any encoding, when known. */
  size?: number;
  _meta?: Meta;
}

/** A family of resources addressed by an RFC 6570 URI template. */
export interface ResourceTemplate extends BaseMetadata, Icons {
  uriTemplate: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  _meta?: Meta;
}

export interface TextResourceContents extends ResourceContents {
  text: string;
}

export interface BlobResourceContents extends ResourceContents {
  /** Base64-encoded bytes. */
  blob: string;
}

export interface ListResourcesResult extends PaginatedResult {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

/** Params naming one resource: read, subscribe, unsubscribe. */
export interface ResourceRequestParams extends RequestParams {
  uri: string;
}

export type ReadResourceRequestParams = ResourceRequestParams;
export type SubscribeRequestParams = ResourceRequestParams;
export type UnsubscribeRequestParams = ResourceRequestParams;

export interface ReadResourceResult extends Result {
  contents: (TextResourceContents | BlobResourceContents)[];
}

export interface ResourceUpdatedNotificationParams extends NotificationParams {
  /** The updated resource; may be a sub-resource of the one subscribed to. */
  uri: string;
}

// ---- Prompts ----

export interface PromptArgument extends BaseMetadata {
  description?: string;
  required?: boolean;
}

export interface Prompt extends BaseMetadata, Icons {
  description?: string;
  arguments?: PromptArgument[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface ListPromptsResult extends PaginatedResult {
  prompts: Prompt[];
}

export interface GetPromptRequestParams extends RequestParams {
  name: string;
  arguments?: { [key: string]: string };
}

export interface GetPromptResult extends Result {
  description?: string;
  messages: PromptMessage[];
}

// ---- Tools ----

/** The JSON Schema of a tool's arguments or structured output: always an object schema. */
export interface ObjectSchema {
  $schema?: string;
  type: 'object';
  properties?: { [key: string]: JsonObject };
  required?: string[];
  [key: string]: unknown;
}

/** Hints about a tool's behaviour; untrusted unless the server is. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** How a tool may be run; `taskSupport` belongs to the experimental tasks utility. */
export interface ToolExecution {
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

export interface Tool extends BaseMetadata, Icons {
  description?: string;
  inputSchema: ObjectSchema;
  /** When present, successful results carry `structuredContent` conforming to it. */
  outputSchema?: ObjectSchema;
  execution?: ToolExecution;
  annotations?: ToolAnnotations;
  _meta?: Meta;
}

export interface ListToolsResult extends PaginatedResult {
  tools: Tool[];
}

export interface CallToolRequestParams extends RequestParams {
  name: string;
  arguments?: JsonObject;
}

export interface CallToolResult extends Result {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  /** True when the tool failed; the failure is reported to the model, not as a protocol error. */
  isError?: boolean;
}

// ---- Completion ----

export interface PromptReference extends BaseMetadata {
  type: 'ref/prompt';
}

export interface ResourceTemplateReference {
  type: 'ref/resource';
  /** The URI template, or a URI. */
  uri: string;
}

export interface CompleteRequestParams extends RequestParams {
  ref: PromptReference | ResourceTemplateReference;
  /** The argument being completed and what the user typed so far. */
  argument: { name: string; value: string };
  /** Values of arguments already resolved. */
  context?: { arguments?: { [key: string]: string } };
}

export interface CompleteResult extends Result {
  completion: {
    /** At most 100 values. */
    values: string[];
    total?: number;
    hasMore?: boolean;
  };
}

// ---- Sampling ----

/** A model call the LLM made, returned by the client in a sampling result. */
export interface ToolUseContent {
  type: 'tool_use';
  /** Matched by `toolUseId` of the result. */
  id: string;
  name: string;
  input: JsonObject;
  _meta?: Meta;
}

/** The outcome of a tool use, sent back by the server. */
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: Meta;
}

export type SamplingMessageContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ToolUseContent
  | ToolResultContent;

/** A message in a sampling conversation; a user message with tool results holds only tool results. */
export interface SamplingMessage {
  role: Role;
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[];
  _meta?: Meta;
}

export interface ModelHint {
  /** A substring of a model name, e.g. "sonnet". */
  name?: string;
}

/** Priorities from 0 to 1, plus name hints; the client picks the model. */
export interface ModelPreferences {
  hints?: ModelHint[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

export interface ToolChoice {
  /** "auto" when omitted. */
  mode?: 'auto' | 'required' | 'none';
}

export interface CreateMessageRequestParams extends RequestParams {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  /** Soft-deprecated: only with the client's `sampling.context` capability. */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  /** Provider-specific metadata passed through. */
  metadata?: JsonObject;
  /** Needs the client's `sampling.tools` capability. */
  tools?: Tool[];
  toolChoice?: ToolChoice;
}

export interface CreateMessageResult extends Result, SamplingMessage {
  /** The model that answered. */
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
}

// ---- Elicitation ----

export interface StringSchema {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  /** Shown in the spec's elicitation page, absent from its schema; clients may ignore it. */
  pattern?: string;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

export interface NumberSchema {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}

export interface BooleanSchema {
  type: 'boolean';
  title?: string;
  description?: string;
  default?: boolean;
}

/** A choice among titled values. */
export interface EnumOption {
  const: string;
  title: string;
}

export interface UntitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
}

export interface TitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: EnumOption[];
  default?: string;
}

export interface UntitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}

export interface TitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: EnumOption[] };
  default?: string[];
}

/** The pre-2025-11-25 way to title enum values; kept for compatibility. */
export interface LegacyTitledEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
}

export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
export type EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;

/** The only property schemas a form may ask for: flat, primitive. */
export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

/** Form mode: the client renders a form from `requestedSchema` and returns the values. */
export interface ElicitRequestFormParams extends RequestParams {
  mode?: 'form';
  message: string;
  requestedSchema: {
    $schema?: string;
    type: 'object';
    properties: { [key: string]: PrimitiveSchemaDefinition };
    required?: string[];
  };
}

/** URL mode: the user completes the interaction out of band, at `url`. */
export interface ElicitRequestURLParams extends RequestParams {
  mode: 'url';
  message: string;
  /** Unique within the session; echoed by `notifications/elicitation/complete`. */
  elicitationId: string;
  url: string;
}

export type ElicitRequestParams = ElicitRequestFormParams | ElicitRequestURLParams;

export interface ElicitResult extends Result {
  action: 'accept' | 'decline' | 'cancel';
  /** Form mode with "accept" only. */
  content?: { [key: string]: string | number | boolean | string[] };
}

export interface ElicitationCompleteNotificationParams extends NotificationParams {
  elicitationId: string;
}

/** `data` of a -32042 error: the URL-mode elicitations to finish before retrying. */
export interface UrlElicitationRequiredData {
  elicitations: ElicitRequestURLParams[];
  [key: string]: unknown;
}

// ---- Roots ----

export interface Root {
  /** A file:// URI. */
  uri: string;
  name?: string;
  _meta?: Meta;
}

export interface ListRootsResult extends Result {
  roots: Root[];
}

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
