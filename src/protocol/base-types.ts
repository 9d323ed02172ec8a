/** The shapes every MCP message builds on: params, results, pagination, metadata, annotations. */

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

// ---- Roles and annotations ----

export type Role = 'user' | 'assistant';

/** Hints on how a client should use or show an object. */
export interface Annotations {
  audience?: Role[];
  /** 0 (least important) to 1 (most important). */
  priority?: number;
  /** ISO 8601 timestamp. */
  lastModified?: string;
}
