// The metadata an MCP server's challenge leads to, and its authorization server's, come from servers the client
// does not control. Whatever they hold where a list of strings goes, discovery gives metadata whose lists are
// lists of strings, or fails with an OAuthError: never a TypeError from reading a number as a list, never a
// string taken for a list ("S256x" includes "S256"). Runs and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { discoverAuthorizationServer, discoverProtectedResource } from './metadata.js';
import { OAuthError } from './oauth-error.js';

const SERVER = new URL('https://mcp.example.com/mcp');
const ISSUER = 'https://auth.example.com';
const RESOURCE = { resource: 'https://mcp.example.com/mcp', authorization_servers: [ISSUER] };
const AS = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
};

/** What a hostile server puts where a list goes: mostly lists, of strings or not, and anything else. */
const listish = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(fc.constantFrom('S256', 'none', 'client_credentials', 'offline_access', 'read')),
  },
  { weight: 2, arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.constantFrom('S256x', 'read write', '') },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const lists = (fields: string[]) =>
  fc.record(Object.fromEntries(fields.map((f) => [f, listish])), { requiredKeys: [] });

const answering =
  (body: unknown): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

function isStringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((item) => typeof item === 'string');
}

async function outcome<T extends Record<string, unknown>>(
  discovery: Promise<T | undefined>,
  fields: string[],
): Promise<'kept' | 'refused'> {
  try {
    const meta = await discovery;
    assert.ok(meta !== undefined);
    for (const f of fields)
      if (f in meta) assert.ok(isStringList(meta[f]), `${f}: ${JSON.stringify(meta[f])}`);
    return 'kept';
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return 'refused';
  }
}

test('Protected Resource Metadata: its scopes are a list of strings, or it is refused with an OAuthError', async () => {
  const fields = ['scopes_supported'];
  await fc.assert(
    fc.asyncProperty(lists(fields), async (extra) => {
      const meta = { ...RESOURCE, ...extra };
      const got = await outcome(discoverProtectedResource(SERVER, undefined, answering(meta)), fields);
      assert.equal(got, fields.every((f) => !(f in extra) || isStringList(extra[f])) ? 'kept' : 'refused');
    }),
    fuzzRuns(300),
  );
});

test("an authorization server's metadata: the lists a client reads are lists of strings, or it is refused", async () => {
  const fields = [
    'scopes_supported',
    'code_challenge_methods_supported',
    'grant_types_supported',
    'token_endpoint_auth_methods_supported',
  ];
  await fc.assert(
    fc.asyncProperty(lists(fields), async (extra) => {
      const meta = { ...AS, ...extra };
      const got = await outcome(discoverAuthorizationServer(ISSUER, answering(meta)), fields);
      assert.equal(got, fields.every((f) => !(f in extra) || isStringList(extra[f])) ? 'kept' : 'refused');
    }),
    fuzzRuns(300),
  );
});
