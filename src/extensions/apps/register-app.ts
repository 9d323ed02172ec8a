import { accessSync, constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { JsonObject } from '../../protocol/base-types.js';
import type { ReadResourceResult } from '../../protocol/types.js';
import type { ServerContext } from '../../server/context.js';
import type { SchemaInput } from '../../server/schema.js';
import type { ResourceHandle, Server, ToolHandle } from '../../server/server.js';
import type { ToolDef, ToolHandler } from '../../server/tools.js';
import { checkViewMeta, checkViewUri, checkVisibility } from './app-checks.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppResourceMeta,
  LEGACY_RESOURCE_URI_KEY,
  type ToolVisibility,
} from './app-meta.js';

/** An app's view: a `ui://` resource holding an HTML document, and what hosts read before rendering it. */
export interface AppDef extends AppResourceMeta {
  /** `ui://server/view`. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /**
   * The HTML document: its text, a file read at each `resources/read` (checked readable now), or a function
   * that returns it for the request.
   */
  html: string | { file: string | URL } | ((ctx: ServerContext) => string | Promise<string>);
}

/** A tool of an app: a tool definition, and who may call it (default both the model and the view). */
export type AppToolDef<S extends SchemaInput | undefined = undefined> = ToolDef<S> & {
  visibility?: ToolVisibility[];
};

/** An app registered on a server: its view's resource, and the tools that render in it. */
export interface App {
  readonly uri: string;
  readonly resource: ResourceHandle;
  /**
   * Registers a tool whose results the view renders (`_meta.ui.resourceUri`, and the flat key older hosts
   * read). Its handler still answers text `content` for hosts that render no apps (`rendersApps`).
   */
  tool<S extends SchemaInput | undefined = undefined>(
    def: AppToolDef<S>,
    handler: ToolHandler<S>,
  ): ToolHandle;
}

/**
 * Registers an MCP App on `server`: the view's resource (MIME `text/html;profile=mcp-app`, its `_meta.ui` on
 * the listing and on the content read), and the `io.modelcontextprotocol/ui` extension in the server's
 * capabilities. Throws naming the rule for a URI that is not `ui://`, CSP entries that are not origins,
 * unknown permissions, or an HTML file that cannot be read.
 */
export function registerApp(server: Server, def: AppDef): App {
  const { uri, name, title, description, html, csp, permissions, domain, prefersBorder } = def;
  checkViewUri(uri);
  const ui: AppResourceMeta = withoutUndefined({ csp, permissions, domain, prefersBorder });
  checkViewMeta(ui);
  const document = documentOf(html, uri);
  const meta = Object.keys(ui).length === 0 ? undefined : { ui: ui as JsonObject };
  const resource = server.resource(
    withoutUndefined({ uri, name, title, description, mimeType: APP_MIME_TYPE, _meta: meta }),
    async (_uri, ctx): Promise<ReadResourceResult> => ({
      contents: [withoutUndefined({ uri, mimeType: APP_MIME_TYPE, text: await document(ctx), _meta: meta })],
    }),
  );
  server.announceExtension(APPS_EXTENSION, { mimeTypes: [APP_MIME_TYPE] });
  return {
    uri,
    resource,
    tool(toolDef, handler) {
      const { visibility, ...plain } = toolDef;
      if (visibility !== undefined) checkVisibility(visibility);
      const toolUi = visibility === undefined ? { resourceUri: uri } : { resourceUri: uri, visibility };
      const _meta = { ...plain._meta, ui: toolUi, [LEGACY_RESOURCE_URI_KEY]: uri };
      return server.tool(
        { ...plain, _meta } as ToolDef<typeof plain.inputSchema>,
        handler as ToolHandler<any>,
      );
    },
  };
}

/** How the view's HTML is found at each read. */
function documentOf(html: AppDef['html'], uri: string): (ctx: ServerContext) => string | Promise<string> {
  if (typeof html === 'string') return () => html;
  if (typeof html === 'function') return html;
  if (html !== null && typeof html === 'object' && 'file' in html) {
    try {
      accessSync(html.file, constants.R_OK);
    } catch (err) {
      throw new TypeError(`The HTML of app ${uri} cannot be read: ${(err as Error).message}`);
    }
    return () => readFile(html.file, 'utf8');
  }
  throw new TypeError(`The HTML of app ${uri} is a string, { file }, or a function returning the document`);
}

/** `record` without its undefined fields, so that none is sent as absent-but-present. */
function withoutUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
