import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import {
  type Annotations,
  type Icon,
  type Meta,
  Method,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '../protocol/types.js';
import { type Access, type Caller, callerOf, checkAccess } from './access.js';
import type { Completer } from './completion.js';
import type { ServerContext } from './context.js';
import { fitting } from './handler-result.js';
import type { InputRequired } from './input-required.js';
import { decodeCursor, encodeCursor, firstAtOrAfter, type Page, pageOf } from './pagination.js';
import type { Entry, Registry } from './registry.js';
import { UriTemplate, type UriTemplateMatch } from './uri-template.js';

/** A resource at a fixed URI, as resources/list publishes it. */
export interface ResourceDef {
  /** Unique among the server's resources. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes before any encoding, when known. */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  /**
   * Who may see and use it (OAuth scopes, a rule on the caller); a caller it does not admit finds it absent.
   * Default: every caller.
   */
  access?: Access;
  _meta?: Meta;
}

/** What reading a resource answers: its contents, or that the client is needed first (`inputRequired`). */
export type ReadOutcome = ReadResourceResult | InputRequired | Promise<ReadResourceResult | InputRequired>;

/** Reads a static resource. */
export type ReadResource = (uri: string, ctx: ServerContext) => ReadOutcome;

/** The fields a resource's `update` may change, including its reader. */
export type ResourceUpdate = Partial<ResourceDef> & { read?: ReadResource };

export interface ResourceEntry extends Entry<Resource> {
  readonly def: ResourceDef;
  readonly read: ReadResource;
}

/** A family of resources addressed by an RFC 6570 URI template, as resources/templates/list publishes it. */
export interface ResourceTemplateDef {
  /** Unique among the server's templates; completion requests name a template by it. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  /**
   * Who may see and use it (OAuth scopes, a rule on the caller); a caller it does not admit finds it absent.
   * Default: every caller.
   */
  access?: Access;
  _meta?: Meta;
}

/** What a template does: read a matching URI, and optionally list concrete resources and complete variables. */
export interface ResourceTemplateCallbacks {
  /** Reads a URI that matches the template; `variables` are its percent-decoded values. */
  read(uri: string, variables: UriTemplateMatch, ctx: ServerContext): ReadOutcome;
  /** Resources of this template to include in resources/list (called for each page that reaches them). */
  list?(ctx: ServerContext): Resource[] | Promise<Resource[]>;
  /** Completers by variable name, for completion/complete with a `ref/resource` reference. */
  complete?: { [variable: string]: Completer };
}

/** The fields a template's `update` may change, including its callbacks. */
export type ResourceTemplateUpdate = Partial<ResourceTemplateDef> & Partial<ResourceTemplateCallbacks>;

export interface TemplateEntry extends Entry<ResourceTemplate> {
  readonly def: ResourceTemplateDef;
  readonly template: UriTemplate;
  readonly callbacks: ResourceTemplateCallbacks;
  /** Completers by variable name (own properties only); undefined when there are none. */
  readonly completers: Readonly<Record<string, Completer>> | undefined;
}

export function buildResource(def: ResourceDef, read: ReadResource, seq: number): ResourceEntry {
  if (typeof def?.uri !== 'string' || def.uri === '') throw new Error('A resource needs a non-empty "uri"');
  if (typeof def.name !== 'string') throw new Error(`Resource "${def.uri}" needs a "name"`);
  if (typeof read !== 'function') throw new Error(`Resource "${def.uri}" needs a read function`);
  const published: Resource = { uri: def.uri, name: def.name };
  if (def.title !== undefined) published.title = def.title;
  if (def.description !== undefined) published.description = def.description;
  if (def.mimeType !== undefined) published.mimeType = def.mimeType;
  if (def.size !== undefined) published.size = def.size;
  if (def.annotations !== undefined) published.annotations = def.annotations;
  if (def.icons !== undefined) published.icons = def.icons;
  if (def._meta !== undefined) published._meta = def._meta;
  const access = checkAccess(def.access, `Resource "${def.uri}"`);
  return { key: def.uri, seq, published, access, enabled: true, def, read };
}

export function rebuildResource(current: ResourceEntry, changes: ResourceUpdate): ResourceEntry {
  const { read, ...fields } = changes;
  return buildResource({ ...current.def, ...fields }, read ?? current.read, current.seq);
}

/** Parses the template and checks that every completer names one of its variables. */
export function buildTemplate(
  def: ResourceTemplateDef,
  callbacks: ResourceTemplateCallbacks,
  seq: number,
): TemplateEntry {
  if (typeof def?.uriTemplate !== 'string' || def.uriTemplate === '') {
    throw new Error('A resource template needs a non-empty "uriTemplate"');
  }
  if (typeof def.name !== 'string') throw new Error(`Resource template "${def.uriTemplate}" needs a "name"`);
  if (typeof callbacks?.read !== 'function') {
    throw new Error(`Resource template "${def.uriTemplate}" needs a read function`);
  }
  const template = new UriTemplate(def.uriTemplate);
  let completers: Record<string, Completer> | undefined;
  for (const [variable, complete] of Object.entries(callbacks.complete ?? {})) {
    if (!template.variableNames.includes(variable)) {
      throw new Error(
        `Resource template "${def.uriTemplate}" has a completer for "${variable}", which it does not have`,
      );
    }
    completers ??= Object.create(null) as Record<string, Completer>;
    completers[variable] = complete;
  }
  const published: ResourceTemplate = { uriTemplate: def.uriTemplate, name: def.name };
  if (def.title !== undefined) published.title = def.title;
  if (def.description !== undefined) published.description = def.description;
  if (def.mimeType !== undefined) published.mimeType = def.mimeType;
  if (def.annotations !== undefined) published.annotations = def.annotations;
  if (def.icons !== undefined) published.icons = def.icons;
  if (def._meta !== undefined) published._meta = def._meta;
  const access = checkAccess(def.access, `Resource template "${def.uriTemplate}"`);
  return {
    key: def.uriTemplate,
    seq,
    published,
    access,
    enabled: true,
    def,
    template,
    callbacks,
    completers,
  };
}

export function rebuildTemplate(current: TemplateEntry, changes: ResourceTemplateUpdate): TemplateEntry {
  const { read, list, complete, ...fields } = changes;
  const callbacks: ResourceTemplateCallbacks = {
    read: read ?? current.callbacks.read,
    list: 'list' in changes ? list : current.callbacks.list,
    complete: 'complete' in changes ? complete : current.callbacks.complete,
  };
  return buildTemplate({ ...current.def, ...fields }, callbacks, current.seq);
}

/** What serves one URI: a static resource, or a template and the values of its variables. */
type Source =
  | { readonly entry: ResourceEntry }
  | { readonly template: TemplateEntry; readonly variables: UriTemplateMatch };

/**
 * What serves `uri` for `caller`: the static resource with exactly this URI first, then the first enabled
 * template, in registration order, that matches it, of those the caller may use; undefined when none
 * does. Throws ScopeError when the first that matches needs scopes the caller lacks.
 */
function sourceOf(
  resources: Registry<ResourceEntry, Resource>,
  templates: Registry<TemplateEntry, ResourceTemplate>,
  uri: string,
  caller: Caller,
): Source | undefined {
  const found = resources.find(uri);
  const entry = found && resources.usable(found, caller);
  if (entry !== undefined) return { entry };
  for (const t of templates.list().entries) {
    const variables = t.template.match(uri);
    if (variables !== undefined && templates.usable(t, caller) !== undefined)
      return { template: t, variables };
  }
  return undefined;
}

const notFound = (uri: string) =>
  new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });

/** Answers resources/read from what serves the URI for the caller (see `sourceOf`); -32002 with `data: { uri }` when none does. */
export function readResource(
  resources: Registry<ResourceEntry, Resource>,
  templates: Registry<TemplateEntry, ResourceTemplate>,
  uri: string,
  ctx: ServerContext,
): ReadOutcome {
  const source = sourceOf(resources, templates, uri, callerOf(ctx.transport));
  if (source === undefined) throw notFound(uri);
  const read =
    'entry' in source
      ? source.entry.read(uri, ctx)
      : source.template.callbacks.read(uri, source.variables, ctx);
  return fitting(Method.ResourcesRead, `The resource "${uri}"`, read);
}

/**
 * Refuses a subscription to a URI that only entries hidden from the caller serve (-32002), or whose first
 * server needs scopes it lacks (ScopeError); a URI nothing serves yet may be subscribed to.
 */
export function checkSubscribable(
  resources: Registry<ResourceEntry, Resource>,
  templates: Registry<TemplateEntry, ResourceTemplate>,
  uri: string,
  caller: Caller,
): void {
  if (!resources.guarded && !templates.guarded) return;
  if (sourceOf(resources, templates, uri, caller) !== undefined) return;
  const served =
    resources.find(uri) !== undefined ||
    templates.list().entries.some((t) => t.template.match(uri) !== undefined);
  if (served) throw notFound(uri);
}

/**
 * One page of resources/list: the static resources and, where they were registered, the resources
 * each template's `list` returns, of the entries the caller may see. Without listing templates this is the plain cached page.
 */
export function listResources(
  resources: Registry<ResourceEntry, Resource>,
  templates: Registry<TemplateEntry, ResourceTemplate>,
  cursor: string | undefined,
  pageSize: number,
  ctx: ServerContext,
): Page<Resource> | Promise<Page<Resource>> {
  const caller = callerOf(ctx.transport);
  const statics = resources.listFor(caller);
  const listing = templates.listFor(caller).entries.filter((t) => t.callbacks.list !== undefined);
  if (listing.length === 0) return pageOf('resources', statics.entries, statics.published, cursor, pageSize);
  const sources: (ResourceEntry | TemplateEntry)[] = [...statics.entries, ...listing];
  sources.sort((a, b) => a.seq - b.seq);
  return expandedPage(sources, cursor, pageSize, ctx);
}

/** Pages through sources of which some contribute many items: the cursor also counts items within one. */
async function expandedPage(
  sources: (ResourceEntry | TemplateEntry)[],
  cursor: string | undefined,
  pageSize: number,
  ctx: ServerContext,
): Promise<Page<Resource>> {
  const from = decodeCursor('resources', cursor);
  const items: Resource[] = [];
  for (let i = firstAtOrAfter(sources, from.seq); i < sources.length; i++) {
    const source = sources[i];
    const listed = 'template' in source ? await source.callbacks.list!(ctx) : [source.published];
    for (let k = source.seq === from.seq ? from.offset : 0; k < listed.length; k++) {
      if (items.length === pageSize) return { items, nextCursor: encodeCursor('resources', source.seq, k) };
      items.push(listed[k]);
    }
  }
  return { items, nextCursor: undefined };
}
