import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBearerChallenge } from './www-authenticate.js';

test('the Bearer challenge: its parameters, quoted or not, escapes undone', () => {
  assert.deepEqual(
    parseBearerChallenge(
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
  assert.deepEqual(parseBearerChallenge('bearer error=invalid_token'), { error: 'invalid_token' });
  assert.deepEqual(parseBearerChallenge('Bearer'), {});
});

test('among several challenges, the Bearer one; other schemes and token68 values are skipped', () => {
  assert.deepEqual(parseBearerChallenge('Basic realm="a, b", Bearer scope="x", DPoP algs="ES256"'), {
    scope: 'x',
  });
  assert.deepEqual(parseBearerChallenge('Negotiate abc==, Bearer error="invalid_token"'), {
    error: 'invalid_token',
  });
  assert.deepEqual(parseBearerChallenge('Bearer scope="first", scope="second"'), { scope: 'first' });
});

test('no Bearer challenge, no header, or a broken one', () => {
  assert.equal(parseBearerChallenge('Basic realm="x"'), undefined);
  assert.equal(parseBearerChallenge(null), undefined);
  assert.equal(parseBearerChallenge(''), undefined);
  assert.deepEqual(parseBearerChallenge('Bearer scope="never closed'), { scope: 'never closed' });
});
