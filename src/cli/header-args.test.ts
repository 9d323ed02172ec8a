// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are header values that name variables as a shell would
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHeaders } from './header-args.js';
import { UsageError } from './usage-error.js';

test('${NAME} in a header value is the environment variable, once; anything else is kept as written', () => {
  const env = { MCP_TOKEN: 'Bearer s3cret', NESTED: '${MCP_TOKEN}' };
  assert.deepEqual(
    parseHeaders(
      [
        'Authorization: ${MCP_TOKEN}',
        'X-Nested: ${NESTED}',
        'X-Plain: $MCP_TOKEN ${1X} ${} $',
        'X-Two: ${MCP_TOKEN}/${MCP_TOKEN}',
      ],
      env,
    ),
    {
      Authorization: 'Bearer s3cret',
      'X-Nested': '${MCP_TOKEN}',
      'X-Plain': '$MCP_TOKEN ${1X} ${} $',
      'X-Two': 'Bearer s3cret/Bearer s3cret',
    },
  );
});

test('a variable that is not set is a usage mistake naming it and the header', () => {
  assert.throws(
    () => parseHeaders(['Authorization: Bearer ${MCPWIRE_NOT_SET}'], {}),
    (err: Error) =>
      err instanceof UsageError &&
      err.message ===
        '--header Authorization: the environment variable MCPWIRE_NOT_SET it names (${MCPWIRE_NOT_SET}) is not set',
  );
});
