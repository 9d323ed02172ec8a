/** Prompts, and completion of prompt arguments and resource template variables. */

import type {
  BaseMetadata,
  Icons,
  Meta,
  PaginatedResult,
  RequestParams,
  Result,
  Role,
} from './base-types.js';
import type { ContentBlock } from './content-types.js';

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
