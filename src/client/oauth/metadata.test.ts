import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discoverProtectedResource } from './metadata.js';
import { OAuthError } from './oauth-error.js';

const SERVER = new URL('https://mcp.example.com/mcp');
const META = { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://auth.example.com'] };

/** A fetch that answers every URL with `body` as JSON. */
const answering =
  (body: unknown): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

test('the metadata a challenge names is read and checked', async () => {
  const meta = await discoverProtectedResource(SERVER, 'https://mcp.example.com/meta', answering(META));
  assert.deepEqual(meta, META);
});

test('metadata longer than 1 MiB is no metadata: it is not read on, nor trusted', async () => {
  // Named by the MCP server, so it may be anywhere: a body that never ended would grow the client without bound.
  const long = { ...META, padding: 'x'.repeat(1024 * 1024) };
  await assert.rejects(
    discoverProtectedResource(SERVER, 'https://mcp.example.com/meta', answering(long)),
    (err: unknown) =>
      err instanceof OAuthError &&
      /^Could not read the Protected Resource Metadata of .* where the server's challenge said it is$/.test(
        err.message,
      ),
  );
});
