import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { startAuthorizationServer } from '../test-support/authorization-server.js';
import { listenLoopback } from '../test-support/http-loopback.js';
import { introspectionVerifier } from './introspection-verifier.js';

const as = await startAuthorizationServer();
after(() => as.close());
beforeEach(() => as.reset());

const RESOURCE = 'http://127.0.0.1:1/mcp';
let now = 1_000_000;
const verifier = (cacheMs?: number) =>
  introspectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: 'resource-server',
    clientSecret: 'rs-secret',
    resource: RESOURCE,
    cacheMs,
    clock: { now: () => now },
  });

test('an active token for this resource is granted: its subject and scopes', async () => {
  as.tokens.set('good', { scopes: ['mcp:tools', 'mcp:read'], resource: RESOURCE });
  now = Date.now();
  assert.deepEqual(await verifier().verify('good'), { principal: 'ada', scopes: ['mcp:tools', 'mcp:read'] });
  const [asked] = as.log.introspections;
  assert.equal(asked.get('token'), 'good');
  assert.equal(asked.get('token_type_hint'), 'access_token');
});

test('a token bound to a key: the grant names the thumbprint the answer confirms (cnf.jkt)', async () => {
  as.tokens.set('bound', { scopes: ['mcp:tools'], resource: RESOURCE, jkt: 'thumbprint' });
  now = Date.now();
  assert.deepEqual(await verifier().verify('bound'), {
    principal: 'ada',
    scopes: ['mcp:tools'],
    jkt: 'thumbprint',
  });
});

test('unknown, for another resource, or expired: refused', async () => {
  now = Date.now();
  as.tokens.set('elsewhere', { scopes: [], resource: 'https://other.example/mcp' });
  as.tokens.set('old', { scopes: [], resource: RESOURCE });
  assert.equal(await verifier().verify('unknown'), undefined);
  assert.equal(await verifier().verify('elsewhere'), undefined);
  as.expiresIn = 60;
  now = Date.now() + 61_000;
  assert.equal(await verifier().verify('old'), undefined);
});

test('answers are reused for a while, never past the expiry; refusals too', async () => {
  now = Date.now();
  as.tokens.set('good', { scopes: [], resource: RESOURCE });
  const v = verifier(30_000);
  await v.verify('good');
  await v.verify('good');
  await v.verify('bad');
  await v.verify('bad');
  assert.equal(as.log.introspections.length, 2);
  // Revoked meanwhile: seen once the answer is older than cacheMs.
  as.tokens.delete('good');
  now += 31_000;
  assert.equal(await v.verify('good'), undefined);
  assert.equal(as.log.introspections.length, 3);
});

test('an endpoint that refuses this server, or cannot be reached, rejects: the request cannot be judged', async () => {
  const wrong = introspectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: 'resource-server',
    clientSecret: 'not-it',
    resource: RESOURCE,
  });
  await assert.rejects(Promise.resolve(wrong.verify('x')), /introspection endpoint answered HTTP 401/);
  const down = introspectionVerifier({
    endpoint: 'http://127.0.0.1:1/introspect',
    clientId: 'a',
    clientSecret: 'b',
    resource: RESOURCE,
  });
  await assert.rejects(Promise.resolve(down.verify('x')));
});

test('requests that come with a token while it is introspected wait for that one answer', async () => {
  now = Date.now();
  as.tokens.set('good', { scopes: ['mcp:tools'], resource: RESOURCE });
  const v = verifier(0);
  const grants = await Promise.all([1, 2, 3, 4, 5].map(() => v.verify('good')));
  for (const grant of grants) assert.deepEqual(grant, { principal: 'ada', scopes: ['mcp:tools'] });
  assert.equal(as.log.introspections.length, 1);
  // Once answered, and nothing kept (cacheMs 0), the next request asks again.
  await v.verify('good');
  assert.equal(as.log.introspections.length, 2);
});

test('an endpoint that answers nothing in timeoutMs, or no JSON object, rejects saying so', async () => {
  // Answers nothing; closing the server ends what it holds.
  const silent = await listenLoopback(() => {});
  const odd = await listenLoopback((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
  );
  const at = (port: number, timeoutMs?: number) =>
    introspectionVerifier({
      endpoint: `http://127.0.0.1:${port}/introspect`,
      clientId: 'a',
      clientSecret: 'b',
      resource: RESOURCE,
      timeoutMs,
    });
  try {
    await assert.rejects(
      Promise.resolve(at(silent.port, 200).verify('x')),
      /the introspection endpoint did not answer within 200 ms/,
    );
    await assert.rejects(
      Promise.resolve(at(odd.port).verify('x')),
      /answered something that is not a JSON object/,
    );
  } finally {
    await silent.close();
    await odd.close();
  }
});

test('an endpoint on plain http is refused at once, but on loopback: credentials and tokens would travel in the clear', () => {
  const options = { clientId: 'a', clientSecret: 'b', resource: RESOURCE };
  assert.throws(
    () => introspectionVerifier({ ...options, endpoint: 'http://as.example/introspect' }),
    /introspectionVerifier: the endpoint http:\/\/as\.example\/introspect is not https/,
  );
  introspectionVerifier({ ...options, endpoint: 'https://as.example/introspect' });
  introspectionVerifier({ ...options, endpoint: 'http://127.0.0.2:9/introspect' });
});
