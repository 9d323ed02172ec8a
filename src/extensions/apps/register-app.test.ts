import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '../../client/client.js';
import { createMemoryPair } from '../../peer/memory.js';
import { Server } from '../../server/server.js';
import { MemoryTaskStore } from '../../tasks/memory-task-store.js';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { checkViewMeta } from './app-checks.js';
import { APP_MIME_TYPE, APPS_EXTENSION } from './app-meta.js';
import { registerApp } from './register-app.js';

const HTML = '<!doctype html><html><body>view</body></html>';
const folder = mkdtempSync(join(tmpdir(), 'mcpwire-apps-'));
after(() => rmSync(folder, { recursive: true, force: true }));

async function connected(server: Server) {
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  return new Client({ name: 't', version: '1' }).connect(clientEnd);
}

describe('registerApp', () => {
  test('announces the extension at initialize and in server/discover, beside tasks', () => {
    const server = new Server({ name: 's', version: '1' }, { tasks: { store: new MemoryTaskStore() } });
    assert.equal(server.capabilities.extensions, undefined);
    registerApp(server, { uri: 'ui://s/view', name: 'View', html: HTML });
    const settings = { mimeTypes: [APP_MIME_TYPE] };
    assert.deepEqual(server.capabilities.extensions, { [APPS_EXTENSION]: settings });
    assert.deepEqual(Object.keys(server.modernCapabilities.extensions as object).sort(), [
      'io.modelcontextprotocol/tasks',
      APPS_EXTENSION,
    ]);
  });

  test('the view is listed and read with its MIME type and _meta.ui; undefined fields are left out', async () => {
    const server = new Server({ name: 's', version: '1' });
    registerApp(server, { uri: 'ui://s/view', name: 'View', html: HTML, prefersBorder: false });
    const session = await connected(server);
    const { resources } = await session.listResources();
    assert.deepEqual(resources, [
      { uri: 'ui://s/view', name: 'View', mimeType: APP_MIME_TYPE, _meta: { ui: { prefersBorder: false } } },
    ]);
    const { contents } = await session.readResource('ui://s/view');
    assert.deepEqual(contents, [
      { uri: 'ui://s/view', mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: { prefersBorder: false } } },
    ]);
    await session.close();
  });

  test('HTML from a file is read at each read; from a function, for the request', async () => {
    const file = join(folder, 'view.html');
    writeFileSync(file, '<p>one</p>');
    const server = new Server({ name: 's', version: '1' });
    registerApp(server, { uri: 'ui://s/file', name: 'File', html: { file } });
    registerApp(server, { uri: 'ui://s/fn', name: 'Fn', html: (ctx) => `<p>${ctx.scope.era}</p>` });
    const session = await connected(server);
    const text = async (uri: string) =>
      ((await session.readResource(uri)).contents[0] as { text: string }).text;
    assert.equal(await text('ui://s/file'), '<p>one</p>');
    writeFileSync(file, '<p>two</p>');
    assert.equal(await text('ui://s/file'), '<p>two</p>');
    assert.equal(await text('ui://s/fn'), `<p>${session.era}</p>`);
    await session.close();
  });

  test("a tool of the app carries its view, both keys, and its visibility; the tool's own _meta is kept", async () => {
    const server = new Server({ name: 's', version: '1' });
    const app = registerApp(server, { uri: 'ui://s/view', name: 'View', html: HTML });
    const empty = { type: 'object', properties: {} } as const;
    const text = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
    app.tool({ name: 'both', inputSchema: empty, _meta: { 'x/own': 1 } }, text);
    app.tool({ name: 'app-only', inputSchema: empty, visibility: ['app'] }, text);
    const session = await connected(server);
    const tools = (await session.listTools()).tools;
    assert.deepEqual(
      tools.map((tool) => tool._meta),
      [
        { 'x/own': 1, ui: { resourceUri: 'ui://s/view' }, 'ui/resourceUri': 'ui://s/view' },
        { ui: { resourceUri: 'ui://s/view', visibility: ['app'] }, 'ui/resourceUri': 'ui://s/view' },
      ],
    );
    await session.close();
  });

  test('refusals name the rule', () => {
    const server = new Server({ name: 's', version: '1' });
    const refused = (def: Record<string, unknown>, pattern: RegExp) =>
      assert.throws(
        () => registerApp(server, { uri: 'ui://s/v', name: 'V', html: HTML, ...def } as never),
        pattern,
      );
    refused(
      { uri: 'https://s/v' },
      /is a ui:\/\/ resource \(ui:\/\/server\/view\): "https:\/\/s\/v" is not one/,
    );
    refused({ uri: 'ui://' }, /"ui:\/\/" is not one/);
    refused(
      { csp: { connectDomains: ['api.example.com'] } },
      /csp\.connectDomains: "api\.example\.com" is not an origin/,
    );
    refused(
      { csp: { frameDomains: ['https://x.example/path'] } },
      /csp\.frameDomains: .* is not an origin \(scheme:\/\/host\[:port\], no path/,
    );
    refused({ csp: { scriptDomains: [] } }, /An app's csp has no "scriptDomains": it lists connectDomains/);
    refused({ permissions: { usb: {} } }, /permissions have no "usb": they are camera, microphone/);
    refused({ permissions: { camera: true } }, /permissions\.camera is \{\} when asked for/);
    refused(
      { html: { file: join(folder, 'missing.html') } },
      /The HTML of app ui:\/\/s\/v cannot be read: ENOENT/,
    );
    refused({ html: 42 }, /is a string, \{ file \}, or a function/);
    const app = registerApp(server, { uri: 'ui://s/ok', name: 'Ok', html: HTML });
    assert.throws(
      () => app.tool({ name: 't', visibility: ['user'] } as never, () => ({ content: [] })),
      /visibility lists who may call it, "model", "app" or both: \["user"\] does not/,
    );
    assert.throws(
      () => app.tool({ name: 't', visibility: [] } as never, () => ({ content: [] })),
      /\[\] does not/,
    );
  });

  test("property: a CSP entry is accepted only as a bare origin, so nothing can be added to the host's policy", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom('connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'),
        (domain, list) => {
          let accepted = true;
          try {
            checkViewMeta({ csp: { [list]: [domain] } });
          } catch {
            accepted = false;
          }
          if (accepted) {
            assert.match(domain, /^(https?|wss?):\/\/[^\s;,'"/]+$/i);
          }
        },
      ),
      fuzzRuns(2000),
    );
    for (const hostile of [
      "https://a.example 'unsafe-eval'",
      'https://a.example; script-src *',
      '*',
      "'self'",
      'https://a.example/',
    ]) {
      assert.throws(() => checkViewMeta({ csp: { connectDomains: [hostile] } }), /is not an origin/, hostile);
    }
  });
});
