// A child that answers with a line longer than the bridge reads (its `maxLineBytes`): the official reference
// server writes the id after the result, yet the request fails at once, with the length named, to the official
// SDK v1 client on the other side of the bridge; the child is kept and answers the next call.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { serveBridge } from '../../src/test-support/served-bridge.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { within } from '../../src/test-support/time-limit.js';

let close: () => Promise<void>;
let url: string;

before(async () => {
  ({ url, close } = await serveBridge({
    upstream: { command: { command: process.execPath, args: [EVERYTHING, 'stdio'], maxLineBytes: 16_384 } },
    stderr: () => {},
    report: () => {},
  }));
});

after(() => close?.());

test("the official SDK v1 client through the bridge: the child's overlong answer fails its call at once", async () => {
  const sdk = new SdkClient({ name: 'sdk', version: '1' });
  await within(sdk.connect(new StreamableHTTPClientTransport(new URL(url))), 20_000, 'sdk connect');
  try {
    // The SDK's own 60 s timeout (-32001) is what waiting for the cut answer's id would end in.
    await assert.rejects(
      sdk.callTool({ name: 'echo', arguments: { message: 'x'.repeat(20_000) } }),
      (err: Error) => {
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32603);
        assert.match(
          err.message,
          /not a valid JSON-RPC response: it is \d+ bytes long, over the limit of 16384 bytes/,
        );
        return true;
      },
    );
    const echo = await sdk.callTool({ name: 'echo', arguments: { message: 'short' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: short' }]);
  } finally {
    await sdk.close();
  }
});
