import { Client } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import { StreamableHTTPClientConnection } from '../client/http/streamable-http-client-connection.js';
import { OAuthClient } from '../client/oauth/oauth-client.js';
import type { OAuthClientOptions } from '../client/oauth/oauth-client-options.js';
import { createDemoServer } from '../demo/demo-server.js';
import { ProtectedResource } from '../http/protected-resource.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import type { Server } from '../server/server.js';
import { startAuthorizationServer, type TestAuthorizationServer } from './authorization-server.js';
import { serveOn } from './mcp-http.js';

/** mcpwire's demo server behind OAuth on loopback, with its test authorization server, for OAuthClient tests. */
export interface OAuthFixture {
  /** The authorization server the resource names at the start. */
  readonly as: TestAuthorizationServer;
  readonly serverUrl: string;
  /** Every request that reached the MCP server: its method and the Authorization header it carried. */
  readonly mcpAuthorization: string[];
  /** The metadata served in place of the resource's own, when a test sets it. */
  metadata: ProtectedResource | undefined;
  /**
   * Moves the resource to `other`: its metadata names that server, and only that server's tokens are taken
   * (the others get 401).
   */
  moveTo(other: TestAuthorizationServer): void;
  /** An OAuthClient whose user approves at once: the authorization URL is fetched and its redirect returned. */
  oauth(options?: Partial<OAuthClientOptions>): OAuthClient;
  /** A session with the server through `auth`. */
  connect(auth: OAuthClient): Promise<ClientSession>;
  /** Back to the start: the first authorization server, forgetful, and the resource's own metadata. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts the fixture: the resource (`server`, by default the demo server) takes the tokens its authorization
 * server issued for it, scope `mcp:tools`.
 */
export async function startOAuthFixture(server: Server = createDemoServer()): Promise<OAuthFixture> {
  const as = await startAuthorizationServer();
  let authority = as;
  let resource: ProtectedResource | undefined;
  let handler: StreamableHTTPHandler | undefined;
  const served = await serveOn((req, res) => {
    if (req.url === resource!.metadataPath) return (fixture.metadata ?? resource!).node()(req, res);
    fixture.mcpAuthorization.push(`${req.method} ${req.headers.authorization ?? '-'}`);
    handler!.node()(req, res);
  });
  const serverUrl = served.url;
  const protectedBy = (server: TestAuthorizationServer) =>
    new ProtectedResource({
      resource: serverUrl,
      authorizationServers: [server.issuer],
      scopesSupported: ['mcp:tools'],
      verifier: {
        verify: (token) => {
          const grant = authority.tokens.get(token);
          return grant?.resource === serverUrl ? { principal: 'ada', scopes: grant.scopes } : undefined;
        },
      },
    });
  resource = protectedBy(as);
  handler = new StreamableHTTPHandler(server, { auth: resource });
  const fixture: OAuthFixture = {
    as,
    serverUrl,
    mcpAuthorization: [],
    metadata: undefined,
    moveTo(other) {
      authority = other;
      fixture.metadata = protectedBy(other);
    },
    oauth: (options = {}) =>
      new OAuthClient({
        redirectUri: 'http://127.0.0.1:1/callback',
        authorize: async (url) => {
          const response = await fetch(url, { redirect: 'manual' });
          await response.body?.cancel();
          return response.headers.get('location')!;
        },
        ...options,
      }),
    connect: (auth) => {
      const client = new Client({ name: 'oauth-test', version: '1' }, { requestTimeoutMs: 10_000 });
      return client.connect(new StreamableHTTPClientConnection(serverUrl, { fetch: auth.fetch }));
    },
    reset() {
      as.reset();
      authority = as;
      fixture.mcpAuthorization.length = 0;
      fixture.metadata = undefined;
    },
    async close() {
      await handler!.close({ deadlineMs: 0 });
      await served.close();
      await as.close();
    },
  };
  return fixture;
}
