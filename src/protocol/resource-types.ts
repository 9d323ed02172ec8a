/** Resources and resource templates: what resources/list, resources/read and their notifications carry. */

import type {
  Annotations,
  BaseMetadata,
  Icons,
  Meta,
  NotificationParams,
  PaginatedResult,
  RequestParams,
  Result,
} from './base-types.js';

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
