// A server whose entries are not all for everyone, for the authorization tests: in this process, or on stdio
// (where every caller is anonymous) when run as `node --import tsx guarded-server.ts --stdio`.
//   For everyone: tool `echo`, resource `note://public`, prompt `hello`.
//   Scope `admin`: tool `wipe`, resource `note://secret`, prompt `review` (its argument `file` completes).
//   Principal "ada" only: tool `diary`, template `diary://{day}`.
// Lists are announced as publicly cacheable, which guarded lists must not be.
import type { ClientSession } from '../client/client-session.js';
import { ProtectedResource, type TokenGrant } from '../http/protected-resource.js';
import type { Caller } from '../server/access.js';
import type { StreamableHTTPOptions } from '../server/http/handler-options.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { Server } from '../server/server.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';
import { serveOn } from './mcp-http.js';

const ADMIN = { scopes: ['admin'] };
const ADA = { allow: (caller: Caller) => caller.principal === 'ada' };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

export function guardedServer(): Server {
  const server = new Server(
    { name: 'guarded', version: '1.0.0' },
    { cacheHints: { ttlMs: 60_000, cacheScope: 'public' } },
  );
  server.tool({ name: 'echo' }, (args) => text(`echo ${String(args.message ?? '')}`));
  server.tool({ name: 'wipe', access: ADMIN }, () => text('wiped'));
  // Its `day` is mirrored in a header by 2026 clients: a caller it is hidden from must not learn that either.
  const day = { type: 'object' as const, properties: { day: { type: 'string', 'x-mcp-header': 'Day' } } };
  server.tool({ name: 'diary', inputSchema: day, access: ADA }, (_args, ctx) =>
    text(`dear diary, from ${ctx.transport?.principal}`),
  );
  server.resource({ uri: 'note://public', name: 'public' }, (uri) => ({
    contents: [{ uri, text: 'for all' }],
  }));
  server.resource({ uri: 'note://secret', name: 'secret', access: ADMIN }, (uri) => ({
    contents: [{ uri, text: 'for admins' }],
  }));
  server.resourceTemplate(
    { uriTemplate: 'diary://{day}', name: 'diary page', access: ADA },
    { read: (uri, { day }) => ({ contents: [{ uri, text: `page of ${String(day)}` }] }) },
  );
  server.prompt({ name: 'hello' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
  }));
  server.prompt(
    {
      name: 'review',
      access: ADMIN,
      arguments: [{ name: 'file', required: true, complete: (value) => [`${value}.ts`] }],
    },
    ({ file }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `review ${file}` } }] }),
  );
  return server;
}

/** The tokens `serveGuarded` takes: ada's, ada's with the scope admin, and bob's; each also holds `mcp`. */
export const GUARDED_GRANTS = {
  ada: { principal: 'ada', scopes: ['mcp'] },
  'ada-admin': { principal: 'ada', scopes: ['mcp', 'admin'] },
  bob: { principal: 'bob', scopes: ['mcp'] },
} as const satisfies Record<string, TokenGrant>;

/** What a session is shown of a server, by kind: the names or URIs of each list, in order. */
export interface Shown {
  tools: string[];
  resources: string[];
  templates: string[];
  prompts: string[];
}

/** What `guardedServer` shows each caller: anonymous ones (stdio, in memory) as bob, who holds no scope it asks. */
export const GUARDED_VIEWS: Readonly<Record<'anonymous' | keyof typeof GUARDED_GRANTS, Shown>> = (() => {
  const everyone: Shown = {
    tools: ['echo'],
    resources: ['note://public'],
    templates: [],
    prompts: ['hello'],
  };
  return {
    anonymous: everyone,
    bob: everyone,
    ada: { ...everyone, tools: ['echo', 'diary'], templates: ['diary://{day}'] },
    'ada-admin': {
      tools: ['echo', 'wipe', 'diary'],
      resources: ['note://public', 'note://secret'],
      templates: ['diary://{day}'],
      prompts: ['hello', 'review'],
    },
  };
})();

/** Everything `session` is shown, by kind. */
export async function shownTo(session: ClientSession): Promise<Shown> {
  return {
    tools: (await session.listTools()).tools.map((t) => t.name),
    resources: (await session.listResources()).resources.map((r) => r.uri),
    templates: (await session.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
    prompts: (await session.listPrompts()).prompts.map((p) => p.name),
  };
}

/** `guardedServer` behind OAuth on loopback, as `serveGuarded` gives it. */
export interface GuardedEndpoint {
  /** The Streamable HTTP endpoint; the HTTP+SSE one is at /sse and /messages beside it. */
  readonly url: string;
  readonly resource: ProtectedResource;
  readonly server: Server;
  readonly handler: StreamableHTTPHandler;
  close(): Promise<void>;
}

/**
 * Serves `guardedServer()` on 127.0.0.1 over Streamable HTTP (with `options`) and HTTP+SSE, taking only the tokens
 * of `GUARDED_GRANTS` and asking every one for the scope `mcp`.
 */
export async function serveGuarded(options: StreamableHTTPOptions = {}): Promise<GuardedEndpoint> {
  let resource: ProtectedResource | undefined;
  let handler: StreamableHTTPHandler | undefined;
  let sse: LegacySSEHandler | undefined;
  const served = await serveOn((req, res) => {
    if (req.url === resource!.metadataPath) resource!.node()(req, res);
    else if (req.url?.startsWith('/sse') || req.url?.startsWith('/messages')) sse!.node()(req, res);
    else handler!.node()(req, res);
  });
  resource = new ProtectedResource({
    resource: served.url,
    authorizationServers: ['https://auth.example.com'],
    requiredScopes: ['mcp'],
    verifier: { verify: (token) => (GUARDED_GRANTS as Record<string, TokenGrant>)[token] },
  });
  const server = guardedServer();
  handler = new StreamableHTTPHandler(server, { ...options, auth: resource });
  sse = new LegacySSEHandler(server, { auth: resource });
  return {
    url: served.url,
    resource,
    server,
    handler,
    async close() {
      await handler!.close({ deadlineMs: 0 });
      await sse!.close();
      await served.close();
    },
  };
}

if (process.argv.includes('--stdio')) serveStdio(guardedServer());
