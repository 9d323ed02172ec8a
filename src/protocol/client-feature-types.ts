/** What a server asks of a client: sampling, elicitation, roots. */

import type { JsonObject, Meta, NotificationParams, RequestParams, Result, Role } from './base-types.js';
import type { AudioContent, ContentBlock, ImageContent, TextContent } from './content-types.js';
import type { Tool } from './tool-types.js';

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
