import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../client/client.js';
import { connectUrl } from '../../client/negotiation/connect-url.js';
import { McpError } from '../../jsonrpc/errors.js';
import { createMemoryPair } from '../../peer/memory.js';
import { StreamableHTTPHandler } from '../../server/http/streamable-http-handler.js';
import { Server } from '../../server/server.js';
import { serveOn } from '../../test-support/mcp-http.js';
import { APP_MIME_TYPE, APPS_EXTENSION } from './app-meta.js';
import { registerApp } from './register-app.js';
import { rendersApps } from './renders-apps.js';
import { readView, viewOf } from './views.js';

const RENDERS = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };

async function connected(server: Server, client: Client) {
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  return client.connect(clientEnd);
}

describe('a host reading views', () => {
  test('viewOf: the nested key, else the flat one; visibility defaulted, unknown entries dropped', () => {
    assert.deepEqual(viewOf({ _meta: { ui: { resourceUri: 'ui://a/v' } } }), {
      uri: 'ui://a/v',
      visibility: ['model', 'app'],
    });
    assert.deepEqual(viewOf({ _meta: { 'ui/resourceUri': 'ui://a/old' } }), {
      uri: 'ui://a/old',
      visibility: ['model', 'app'],
    });
    assert.deepEqual(viewOf({ _meta: { ui: { resourceUri: 'ui://a/v', visibility: ['app', 'admin'] } } }), {
      uri: 'ui://a/v',
      visibility: ['app'],
    });
    assert.equal(viewOf({ _meta: { ui: { resourceUri: 'https://a/v' } } }), undefined);
    assert.equal(viewOf({}), undefined);
  });

  test('readView: text or base64 blob; a resource that is not a view is refused, saying what was answered', async () => {
    const server = new Server({ name: 's', version: '1' });
    registerApp(server, { uri: 'ui://s/text', name: 'T', html: '<p>é</p>', prefersBorder: true });
    server.resource({ uri: 'ui://s/blob', name: 'B', mimeType: APP_MIME_TYPE }, (uri) => ({
      contents: [{ uri, mimeType: APP_MIME_TYPE, blob: Buffer.from('<p>ü</p>').toString('base64') }],
    }));
    server.resource({ uri: 'ui://s/plain', name: 'P', mimeType: 'text/html' }, (uri) => ({
      contents: [{ uri, mimeType: 'text/html', text: '<p></p>' }],
    }));
    const session = await connected(server, new Client({ name: 'c', version: '1' }));
    assert.deepEqual(await readView(session, 'ui://s/text'), {
      uri: 'ui://s/text',
      html: '<p>é</p>',
      ui: { prefersBorder: true },
    });
    assert.deepEqual(await readView(session, 'ui://s/blob'), {
      uri: 'ui://s/blob',
      html: '<p>ü</p>',
      ui: {},
    });
    await assert.rejects(readView(session, 'ui://s/plain'), (err: unknown) => {
      assert.ok(err instanceof McpError);
      assert.match(
        err.message,
        /ui:\/\/s\/plain is not a view: the server answered ui:\/\/s\/plain \(text\/html\)/,
      );
      return true;
    });
    await assert.rejects(readView(session, 'https://s/x'), /is not a ui:\/\/ view/);
    await session.close();
  });

  for (const era of ['modern', 'legacy'] as const) {
    test(`${era}: a Client declaring the extension (ClientOptions.extensions) is told it renders apps`, async () => {
      const server = new Server({ name: 's', version: '1' });
      server.tool({ name: 'probe' }, (_args, ctx) => ({
        content: [{ type: 'text', text: String(rendersApps(ctx.scope)) }],
      }));
      const served = await serveOn(new StreamableHTTPHandler(server).node());
      for (const [extensions, expected] of [
        [RENDERS, 'true'],
        [undefined, 'false'],
      ] as const) {
        // With tasks too: the Tasks extension is declared beside the ones given, not instead.
        const client = new Client({ name: 'c', version: '1' }, { era, extensions, tasks: true });
        const session = await connectUrl(client, served.url);
        assert.deepEqual((await session.callTool('probe', {})).content, [{ type: 'text', text: expected }]);
        await session.close();
      }
      await served.close();
    });
  }
});
