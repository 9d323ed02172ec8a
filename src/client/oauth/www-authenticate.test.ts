import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseChallenge } from './www-authenticate.js';

test('the Bearer challenge: its parameters, quoted or not, escapes undone', () => {
  assert.deepEqual(
    parseChallenge(
      'Bearer error="insufficient_scope", scope="mcp:basic mcp:write", ' +
        'resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", error_description="say \\"please\\""',
    ),
    {
      error: 'insufficient_scope',
      scope: 'mcp:basic mcp:write',
      resourceMetadata: 'http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp',
      errorDescription: 'say "please"',
    },
  );
  assert.deepEqual(parseChallenge('bearer error=invalid_token'), { error: 'invalid_token' });
  assert.deepEqual(parseChallenge('Bearer'), {});
});

test('among several challenges, the Bearer and DPoP ones; other schemes and token68 values are skipped', () => {
  assert.deepEqual(parseChallenge('Basic realm="a, b", Bearer scope="x", DPoP algs="ES256"'), {
    dpop: true,
    scope: 'x',
  });
  // A parameter of the DPoP challenge wins over the Bearer one's (a nonce is asked for on DPoP's).
  assert.deepEqual(
    parseChallenge('Bearer error="invalid_token", DPoP error="use_dpop_nonce", algs="ES256"'),
    {
      dpop: true,
      error: 'use_dpop_nonce',
    },
  );
  assert.deepEqual(parseChallenge('DPoP resource_metadata="https://a.example/m"'), {
    dpop: true,
    resourceMetadata: 'https://a.example/m',
  });
  assert.deepEqual(parseChallenge('Negotiate abc==, Bearer error="invalid_token"'), {
    error: 'invalid_token',
  });
  assert.deepEqual(parseChallenge('Bearer scope="first", scope="second"'), { scope: 'first' });
});

test('neither a Bearer nor a DPoP challenge, no header, or a broken one', () => {
  assert.equal(parseChallenge('Basic realm="x"'), undefined);
  assert.equal(parseChallenge(null), undefined);
  assert.equal(parseChallenge(''), undefined);
  assert.deepEqual(parseChallenge('Bearer scope="never closed'), { scope: 'never closed' });
});
