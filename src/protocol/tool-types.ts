/** Tools: their definitions and schemas, tools/list and tools/call. */

import type {
  BaseMetadata,
  Icons,
  JsonObject,
  Meta,
  PaginatedResult,
  RequestParams,
  Result,
} from './base-types.js';
import type { ContentBlock } from './content-types.js';

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
