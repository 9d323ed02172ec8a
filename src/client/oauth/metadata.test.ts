import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discoverAuthorizationServer, discoverProtectedResource } from './metadata.js';
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

test('authorization server metadata whose PKCE methods are a string, not a list, is refused, naming the field', async () => {
  // Read as it is, "S256x" would pass for a list that includes S256.
  const issuer = 'https://auth.example.com';
  const meta = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    code_challenge_methods_supported: 'S256x',
  };
  await assert.rejects(
    discoverAuthorizationServer(issuer, answering(meta)),
    (err: unknown) =>
      err instanceof OAuthError &&
      err.message ===
        `The authorization server metadata at ${issuer}/.well-known/oauth-authorization-server has a ` +
          '"code_challenge_methods_supported" that is not a list of strings: "S256x"',
  );
});

test('an authorization server not on https is not asked anything, but on loopback', async () => {
  const asked: string[] = [];
  const recording: typeof fetch = async (input) => {
    asked.push(String(input));
    return new Response('{}', { status: 404 });
  };
  const refusal = /is not https: MCP requires every authorization server endpoint to be .* not authorizing$/;
  await assert.rejects(discoverAuthorizationServer('http://auth.example.com', recording), refusal);
  assert.deepEqual(asked, []);
  // Loopback, where a server under development runs, is let through.
  await assert.rejects(discoverAuthorizationServer('http://127.0.0.1:8080', recording), /Could not read/);
  await assert.rejects(discoverAuthorizationServer('http://[::1]:8080', recording), /Could not read/);
  assert.equal(asked.length, 4);
});

test('metadata on https whose endpoints are not is refused, naming the endpoint', async () => {
  const issuer = 'https://auth.example.com';
  for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) {
    const meta = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      [field]: 'http://auth.example.com/x',
    };
    await assert.rejects(
      discoverAuthorizationServer(issuer, answering(meta)),
      (err: unknown) =>
        err instanceof OAuthError && err.message.startsWith(`The "${field}" of the metadata at ${issuer}/`),
      field,
    );
  }
  const noUrl = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: 5,
  };
  await assert.rejects(
    discoverAuthorizationServer(issuer, answering(noUrl)),
    /no valid "registration_endpoint"/,
  );
});

test('a server not on https gets no token: nothing is asked of it or of anyone for it, but on loopback', async () => {
  const asked: string[] = [];
  const recording: typeof fetch = async (input) => {
    asked.push(String(input));
    return new Response('{}', { status: 404 });
  };
  await assert.rejects(
    discoverProtectedResource(new URL('http://mcp.example.com/mcp'), undefined, recording),
    /^OAuthError: http:\/\/mcp\.example\.com\/mcp is not https: an access token sent to it would cross/,
  );
  assert.deepEqual(asked, []);
  assert.equal(
    await discoverProtectedResource(new URL('http://localhost:9/mcp'), undefined, recording),
    undefined,
  );
});
