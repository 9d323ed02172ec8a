// Our Client, its stdio lines bounded at 16 KiB, against @modelcontextprotocol/server-everything (the official
// reference server): an answer past the bound fails its request at once, though the official SDK writes the id
// after the result, and the session goes on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, type ClientSession, connectStdio } from '../../src/client/index.js';
import { InvalidResponseError } from '../../src/peer/errors.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { toolText } from '../../src/test-support/tool-text.js';

let session: ClientSession;

before(async () => {
  const client = new Client({ name: 'oversize', version: '0.1.0' }, { requestTimeoutMs: 60_000 });
  session = await connectStdio(
    client,
    { command: process.execPath, args: [EVERYTHING, 'stdio'], maxLineBytes: 16_384, closeGraceMs: 20_000 },
    { timeoutMs: 20_000 },
  );
});

after(() => session?.close());

test('an answer past maxLineBytes fails its request at once, naming its length; the next call is answered', async () => {
  // Waiting for the answer's id instead would take the minute of requestTimeoutMs, and fail this test.
  await assert.rejects(session.callTool('echo', { message: 'x'.repeat(20_000) }), (err: Error) => {
    assert.ok(err instanceof InvalidResponseError, String(err));
    assert.match(
      err.message,
      /^The answer to "tools\/call" is not a valid JSON-RPC response: it is \d+ bytes long, over the limit of 16384 bytes$/,
    );
    return true;
  });
  assert.equal(toolText(await session.callTool('echo', { message: 'short' })), 'Echo: short');
});
