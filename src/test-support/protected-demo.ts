import { createDemoServer } from '../demo/demo-server.js';
import { ProtectedResource } from '../http/protected-resource.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import type { Server } from '../server/server.js';
import type { TestAuthorizationServer } from './authorization-server.js';
import { type Served, serveOn } from './mcp-http.js';

/** The demo server as an OAuth protected resource on loopback; see `serveProtectedDemo`. */
export interface ProtectedDemo {
  /** Its MCP endpoint. */
  readonly url: string;
  readonly resource: ProtectedResource;
  close(): Promise<void>;
}

/**
 * Serves `server` (the demo server unless given) at /mcp on 127.0.0.1, taking the tokens `as` issued for it (their principal "ada"),
 * with its Protected Resource Metadata at the well-known path.
 */
export async function serveProtectedDemo(
  as: TestAuthorizationServer,
  requiredScopes?: string[],
  server: Server = createDemoServer(),
): Promise<ProtectedDemo> {
  let resource: ProtectedResource | undefined;
  let handler: StreamableHTTPHandler | undefined;
  const served: Served = await serveOn((req, res) => {
    if (req.url === resource!.metadataPath) resource!.node()(req, res);
    else handler!.node()(req, res);
  });
  resource = new ProtectedResource({
    resource: served.url,
    authorizationServers: [as.issuer],
    requiredScopes,
    verifier: {
      verify: (token) => {
        const grant = as.tokens.get(token);
        return grant?.resource === served.url ? { principal: 'ada', scopes: grant.scopes } : undefined;
      },
    },
  });
  handler = new StreamableHTTPHandler(server, { auth: resource });
  return {
    url: served.url,
    resource,
    async close() {
      await handler!.close({ deadlineMs: 0 });
      await served.close();
    },
  };
}
