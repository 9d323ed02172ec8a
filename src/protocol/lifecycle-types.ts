/** Capabilities, the initialize handshake, and the utilities of either direction: cancellation, progress, logging. */

import type { RequestId } from '../jsonrpc/types.js';
import type {
  Implementation,
  JsonObject,
  NotificationParams,
  ProgressToken,
  RequestParams,
  Result,
} from './base-types.js';

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
