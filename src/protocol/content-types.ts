/** Content blocks: what tool results and prompt messages hold. */

import type { Annotations, Meta } from './base-types.js';
import type { BlobResourceContents, Resource, TextResourceContents } from './resource-types.js';

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
