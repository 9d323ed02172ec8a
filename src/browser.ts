// `mcpwire/browser`: the client for a web page (or any runtime with fetch, streams and Web Crypto): see
// src/client/portable.ts. Node programs import `mcpwire/client`, which adds stdio. A page that hosts MCP Apps
// finds a tool's view and reads it with what `mcpwire/apps` offers hosts (nothing of it needs Node).
export * from './client/portable.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppResourceMeta,
  type ToolVisibility,
} from './extensions/apps/app-meta.js';
export { readView, type ToolView, type View, viewOf } from './extensions/apps/views.js';
