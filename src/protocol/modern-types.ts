/**
 * MCP message types that only the modern era (2026-07-28) has: the result envelope, multi-round-trip
 * requests, `server/discover` and `subscriptions/listen`.
 */

import type { Params, RequestId } from '../jsonrpc/types.js';
import { Method, type ServerCapabilities } from './types.js';

/** How a modern result is to be read; an absent one (a legacy server) means complete. */
export type ResultType = 'complete' | 'input_required' | (string & {});

/** One thing the server needs from the client before it can answer: a request without id or jsonrpc. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: Params;
}

const INPUT_METHODS: ReadonlySet<string> = new Set([
  Method.ElicitationCreate,
  Method.SamplingCreateMessage,
  Method.RootsList,
]);

/**
 * Whether `method` is one a server asks of a client (`InputRequest`), whose answer it checks against the request
 * (`checkClientAnswer`): real requests in the 2025 era, input requests in the 2026 era, and a task's in either.
 */
export function isInputMethod(method: unknown): method is InputRequest['method'] {
  return INPUT_METHODS.has(method as string);
}

/** The server's requests of one round, by key (unique within the request). */
export type InputRequests = Record<string, InputRequest>;

/** The client's bare results (ElicitResult, CreateMessageResult, ListRootsResult), by the keys asked. */
export type InputResponses = Record<string, unknown>;

/** The answer of a round that needs the client: requests to fulfil and/or state to echo byte-exact. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: InputRequests;
  requestState?: string;
  [key: string]: unknown;
}

/** What a client may ask a listen stream for; `taskIds` belongs to the Tasks extension. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** `notifications/tasks` for these tasks (the Tasks extension; needs it declared). */
  taskIds?: string[];
}

/** The answer to `server/discover`. */
export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  [key: string]: unknown;
}

/** `_meta` of every message of a listen stream: the id of the `subscriptions/listen` request. */
export interface SubscriptionMeta {
  'io.modelcontextprotocol/subscriptionId': RequestId;
}

/** The methods whose handlers may need the client first (`input_required`): spec 2026-07-28, MRTR. */
export const ROUND_TRIP_METHODS: ReadonlySet<string> = new Set([
  Method.ToolsCall,
  Method.PromptsGet,
  Method.ResourcesRead,
]);

/**
 * The methods that only read: their modern results carry caching hints (`ttlMs`, `cacheScope`: spec
 * 2026-07-28, caching), and a client may ask again when an answer was lost with its stream.
 */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set([
  Method.ServerDiscover,
  Method.ToolsList,
  Method.PromptsList,
  Method.ResourcesList,
  Method.ResourcesTemplatesList,
  Method.ResourcesRead,
]);
