// MCP Apps (SEP-1865, stable 2026-01-26): the names and shapes a server puts on the wire for a view.

/** The extension's identifier, in `capabilities.extensions` of both sides. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of a view: an HTML5 document a host renders in a sandboxed iframe. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat `_meta` key some hosts still read for a tool's view, beside `_meta.ui.resourceUri`. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Origins a view may reach; each list left out means none (the host's restrictive default). */
export interface AppCsp {
  /** fetch, XHR and WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts and media (`script-src`, `style-src`, …). */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** The document's base URI (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser features a view asks for; a host may refuse them, so a view detects them. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A view's `_meta.ui`: on its resource in `resources/list` and on the content `resources/read` answers. */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin, in the format the host documents. */
  domain?: string;
  /** Whether the view wants the host's border and background. */
  prefersBorder?: boolean;
}

/** Who may call a tool: the model (it is in the agent's list), the view (through its host), or both. */
export type ToolVisibility = 'model' | 'app';
