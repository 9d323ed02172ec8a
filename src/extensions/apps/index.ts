// `mcpwire/apps`: MCP Apps (SEP-1865) on a mcpwire Server: a tool's interactive view, as a ui:// resource.

export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  LEGACY_RESOURCE_URI_KEY,
  type ToolVisibility,
} from './app-meta.js';
export { type App, type AppDef, type AppToolDef, registerApp } from './register-app.js';
export { rendersApps } from './renders-apps.js';
export { readView, type ToolView, type View, viewOf } from './views.js';
