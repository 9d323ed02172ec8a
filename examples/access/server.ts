// Who may call what: two callers, a tool only the scope "admin" may use, and a bound on each caller's requests.
// The two tokens are fixed here to keep the example whole; a real server checks its tokens with jwtVerifier or
// introspectionVerifier. Run: `node --import tsx examples/access/server.ts 3000`.
import { createServer } from 'node:http';
import { ProtectedResource, Server, StreamableHTTPHandler, type TokenGrant } from 'mcpwire/server';

const port = Number(process.argv[2] ?? 3000);
const tokens: Record<string, TokenGrant> = {
  'ada-token': { principal: 'ada', scopes: ['notes', 'admin'] },
  'bob-token': { principal: 'bob', scopes: ['notes'] },
};

const server = new Server({ name: 'notes', version: '1.0.0' });
server.tool({ name: 'read-notes' }, (_args, ctx) => ({
  content: [{ type: 'text', text: `the notes of ${ctx.transport?.principal}` }],
}));
// Bob does not see it in tools/list; if he calls it anyway, he gets 403 and the scope to ask for.
server.tool({ name: 'delete-notes', access: { scopes: ['admin'] } }, () => ({
  content: [{ type: 'text', text: 'deleted' }],
}));

const auth = new ProtectedResource({
  resource: `http://127.0.0.1:${port}/mcp`,
  authorizationServers: ['https://auth.example.com'],
  requiredScopes: ['notes'],
  verifier: { verify: (token) => tokens[token] },
});
// Each caller (each principal; anonymous callers by address) may send 30 requests a minute: past that, 429.
const handler = new StreamableHTTPHandler(server, { auth, rateLimit: { requests: 30, windowMs: 60_000 } });

const metadata = auth.node();
const mcp = handler.node();
createServer((req, res) => (req.url === auth.metadataPath ? metadata(req, res) : mcp(req, res))).listen(
  port,
  '127.0.0.1',
  () => console.log(`listening on http://127.0.0.1:${port}/mcp`),
);
