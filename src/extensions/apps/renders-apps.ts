import type { ClientScope } from '../../server/client-scope.js';
import { APP_MIME_TYPE, APPS_EXTENSION } from './app-meta.js';

/**
 * Whether the caller renders MCP Apps: its capabilities (a 2025 session's at initialize, a 2026 request's in
 * its `_meta`) name the extension with `text/html;profile=mcp-app` among its `mimeTypes`. A tool of an app
 * answers text `content` either way; with this it can leave out what only the view shows.
 */
export function rendersApps(scope: ClientScope): boolean {
  const extensions = scope.clientCapabilities?.extensions as Record<string, unknown> | undefined;
  const settings = extensions?.[APPS_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(settings?.mimeTypes) && settings.mimeTypes.includes(APP_MIME_TYPE);
}
