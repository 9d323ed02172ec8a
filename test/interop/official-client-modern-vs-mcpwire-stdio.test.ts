// The official TS SDK v2 client (2.4.0) against `mcpwire serve --stdio` in the 2026-07-28 era: pinned, and
// auto-negotiated (the client probes with server/discover, which the server's first-message rule serves as
// modern). Each connection discovers, calls a tool, elicits through an input_required round, and listens.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { Client, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI } from '../../src/test-support/cli-run.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MODES: [string, VersionNegotiationMode][] = [
  ['pinned', { pin: '2026-07-28' }],
  ['auto', 'auto'],
];

before(() => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

describe('official 2.4.0 client ↔ mcpwire serve --stdio, 2026-07-28', () => {
  for (const [name, mode] of MODES) {
    test(name, async () => {
      const client = new Client(
        { name: 'interop-stdio', version: '2.4.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
      );
      client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { name: 'Ada' },
      }));
      let changes = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--stdio'],
        stderr: 'pipe',
      });
      await client.connect(transport);
      try {
        assert.deepEqual(client.getDiscoverResult()?.supportedVersions, ['2026-07-28']);
        const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
        assert.equal(toolText(echo), 'Echo: hi');
        const elicited = await client.callTool({ name: 'elicit_name', arguments: {} });
        assert.match(toolText(elicited), /Ada/);

        const subscription = await client.listen({ toolsListChanged: true });
        assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
        await client.callTool({ name: 'toggle_tool', arguments: {} });
        await until(() => changes === 1, 5000, 'the tool list change');
        await subscription.close();
        assert.equal(await subscription.closed, 'local');
      } finally {
        await client.close();
      }
    });
  }
});
