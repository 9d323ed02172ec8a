import type { ClientSession } from '../../client/client-session.js';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { Tool } from '../../protocol/types.js';
import { fromBase64 } from '../../util/base64.js';
import {
  APP_MIME_TYPE,
  type AppResourceMeta,
  LEGACY_RESOURCE_URI_KEY,
  type ToolVisibility,
} from './app-meta.js';

/** A tool's view as a host reads it from `tools/list`. */
export interface ToolView {
  /** The `ui://` resource holding the view. */
  uri: string;
  /** Who may call the tool: `["model", "app"]` unless the server said otherwise. */
  visibility: ToolVisibility[];
}

/** A view read from its server: the HTML document and what the host must know to render it. */
export interface View {
  uri: string;
  html: string;
  /** The content's `_meta.ui` (CSP, permissions, domain, border); `{}` when it has none. */
  ui: AppResourceMeta;
}

/**
 * The view a tool renders in, from `_meta.ui.resourceUri` or the flat `_meta["ui/resourceUri"]` older servers
 * send; undefined for a tool without one (or one not named by a `ui://` URI).
 */
export function viewOf(tool: Pick<Tool, '_meta'>): ToolView | undefined {
  const meta = tool._meta as Record<string, unknown> | undefined;
  const ui = meta?.ui as { resourceUri?: unknown; visibility?: unknown } | undefined;
  const uri = ui?.resourceUri ?? meta?.[LEGACY_RESOURCE_URI_KEY];
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) return undefined;
  const visibility = Array.isArray(ui?.visibility)
    ? ui.visibility.filter((who): who is ToolVisibility => who === 'model' || who === 'app')
    : ['model' as const, 'app' as const];
  return { uri, visibility };
}

/**
 * Reads the view at `uri` (resources/read, in the session's era): the content of that URI with the view MIME
 * type, its HTML from `text` or base64 `blob`. Rejects with McpError (-32602) when the URI is not `ui://` or
 * the server answers no such content, naming what it answered.
 */
export async function readView(session: ClientSession, uri: string): Promise<View> {
  if (!uri.startsWith('ui://')) throw new McpError(ErrorCode.InvalidParams, `${uri} is not a ui:// view`);
  const { contents } = await session.readResource(uri);
  const content = contents.find((item) => item.uri === uri && item.mimeType === APP_MIME_TYPE);
  if (content === undefined) {
    const answered = contents.map((item) => `${item.uri} (${item.mimeType ?? 'no MIME type'})`).join(', ');
    throw new McpError(
      ErrorCode.InvalidParams,
      `${uri} is not a view: the server answered ${answered || 'no content'}, not ${APP_MIME_TYPE}`,
    );
  }
  const html = 'text' in content ? content.text : new TextDecoder().decode(fromBase64(content.blob));
  const ui = ((content._meta as Record<string, unknown> | undefined)?.ui ?? {}) as AppResourceMeta;
  return { uri, html, ui };
}
