// An MCP App registered on mcpwire's Server, read by the official packages a host is built with: the
// ext-apps 2.0.4 host helpers (app-bridge: the tool's view URI, its visibility, the iframe's allow attribute;
// server: getUiCapability) over the official clients, the SDK v1 1.32.2 client in the 2025 era and the
// client 2.4.0 pinned to 2026-07-28, each declaring the extension. A caller that declares it is told so in its
// tool's handler (rendersApps), in both eras; one that does not is not. And the package's server helpers,
// written against the official McpServer, register on mcpwire's Server (registerTool, registerResource).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import {
  EXTENSION_ID,
  getUiCapability,
  RESOURCE_MIME_TYPE,
  registerAppResource,
  registerAppTool,
} from '@modelcontextprotocol/ext-apps/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { registerApp } from '../../src/extensions/apps/register-app.js';
import { rendersApps } from '../../src/extensions/apps/renders-apps.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { type Served, serveOn } from '../../src/test-support/mcp-http.js';

const VIEW = 'ui://apps-interop/counter';
const HTML = '<!doctype html><html><body><p id="count">0</p></body></html>';
const CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const EMPTY = { type: 'object', properties: {} } as const;

function appServer(): Server {
  const server = new Server({ name: 'apps-interop', version: '1.0.0' });
  const app = registerApp(server, {
    uri: VIEW,
    name: 'Counter',
    html: HTML,
    csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  });
  app.tool({ name: 'count', inputSchema: EMPTY }, (_args, ctx) => ({
    content: [{ type: 'text', text: rendersApps(ctx.scope) ? 'rendered by the view' : 'count: 0' }],
  }));
  app.tool({ name: 'increment', inputSchema: EMPTY, visibility: ['app'] }, () => ({
    content: [{ type: 'text', text: '1' }],
  }));
  app.tool({ name: 'explain', inputSchema: EMPTY, visibility: ['model'] }, () => ({
    content: [{ type: 'text', text: 'a counter' }],
  }));
  server.tool({ name: 'plain', inputSchema: EMPTY }, () => ({ content: [{ type: 'text', text: 'plain' }] }));
  return server;
}

interface OfficialClient {
  getServerCapabilities(): unknown;
  listTools(): Promise<{ tools: Array<Record<string, unknown>> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<Record<string, any>> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

let served: Served;
before(async () => {
  served = await serveOn(new StreamableHTTPHandler(appServer()).node());
});
after(() => served?.close());

const clients: Record<string, () => Promise<OfficialClient>> = {
  'SDK v1 1.32.2 (2025-11-25)': async () => {
    const client = new ClientV1({ name: 'host-v1', version: '1.0.0' }, { capabilities: CAPABILITIES });
    await client.connect(new TransportV1(new URL(served.url)));
    return client as unknown as OfficialClient;
  },
  'client 2.4.0 (2026-07-28)': async () => {
    const client = new ClientV2(
      { name: 'host-v2', version: '1.0.0' },
      { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(new URL(served.url)));
    return client as unknown as OfficialClient;
  },
};

for (const [name, connect] of Object.entries(clients)) {
  describe(`ext-apps host helpers over the official ${name}`, () => {
    let client: OfficialClient;
    before(async () => {
      client = await connect();
    });
    after(() => client?.close());

    test('the server announces the extension with the MIME type of views', () => {
      assert.deepEqual(getUiCapability(client.getServerCapabilities() as never), {
        mimeTypes: [RESOURCE_MIME_TYPE],
      });
    });

    test("each tool's view and visibility, as a host reads them", async () => {
      const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name as string, tool]));
      assert.equal(getToolUiResourceUri(tools.get('count')!), VIEW);
      assert.equal(getToolUiResourceUri(tools.get('plain')!), undefined);
      assert.equal(isToolVisibilityAppOnly(tools.get('increment')!), true);
      assert.equal(isToolVisibilityAppOnly(tools.get('count')!), false);
      assert.equal(isToolVisibilityModelOnly(tools.get('explain')!), true);
      // Hosts that read only the flat key find the view too.
      assert.equal((tools.get('count')!._meta as Record<string, unknown>)['ui/resourceUri'], VIEW);
    });

    test('the view: its HTML, MIME type and _meta.ui, and the iframe permissions it asks for', async () => {
      const { contents } = await client.readResource({ uri: VIEW });
      assert.equal(contents.length, 1);
      const [view] = contents;
      assert.equal(view.uri, VIEW);
      assert.equal(view.mimeType, RESOURCE_MIME_TYPE);
      assert.equal(view.text, HTML);
      assert.deepEqual(view._meta?.ui?.csp, {
        connectDomains: ['https://api.example.com'],
        resourceDomains: ['https://*.cdn.example.com'],
      });
      assert.equal(view._meta?.ui?.prefersBorder, true);
      assert.equal(buildAllowAttribute(view._meta?.ui?.permissions), 'clipboard-write');
    });

    test("a host that declares the extension is told so in the tool's handler", async () => {
      const result = (await client.callTool({ name: 'count', arguments: {} })) as { content: unknown };
      assert.deepEqual(result.content, [{ type: 'text', text: 'rendered by the view' }]);
    });
  });
}

test('a client that does not declare the extension gets the text, in both eras', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const session = await connectUrl(
      new Client({ name: 'text-only', version: '1.0.0' }, { era }),
      served.url,
    );
    assert.deepEqual((await session.callTool('count', {})).content, [{ type: 'text', text: 'count: 0' }]);
    await session.close();
  }
});

describe("ext-apps' own server helpers (registerAppTool, registerAppResource) on mcpwire's Server", () => {
  let helped: Served;
  let client: OfficialClient;
  before(async () => {
    const server = new Server({ name: 'helped', version: '1.0.0' });
    // The helpers' TypeScript parameter names the official McpServer; at run time they take mcpwire's.
    const host = server as never;
    registerAppTool(
      host,
      'forecast',
      {
        description: 'Forecast',
        inputSchema: { city: z.string(), days: z.number().int().optional() },
        _meta: { ui: { resourceUri: VIEW } },
      },
      async ({ city, days }: { city: string; days?: number }) => ({
        content: [{ type: 'text' as const, text: `${city} for ${days ?? 1} day(s)` }],
      }),
    );
    registerAppTool(
      host,
      'refresh',
      {
        inputSchema: z.object({ force: z.boolean() }),
        _meta: { ui: { resourceUri: VIEW, visibility: ['app'] } },
      },
      async ({ force }: { force: boolean }) => ({
        content: [{ type: 'text' as const, text: `forced: ${force}` }],
      }),
    );
    registerAppResource(
      host,
      'Forecast view',
      VIEW,
      { _meta: { ui: { prefersBorder: true } } },
      async (uri: URL) => ({
        contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: HTML }],
      }),
    );
    helped = await serveOn(new StreamableHTTPHandler(server).node());
    client = await (async () => {
      const v2 = new ClientV2(
        { name: 'host-v2', version: '1.0.0' },
        { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await v2.connect(new TransportV2(new URL(helped.url)));
      return v2 as unknown as OfficialClient;
    })();
  });
  after(async () => {
    await client?.close();
    await helped?.close();
  });

  test('both view keys, the JSON Schema of a raw shape and of z.object, the view read with its MIME type', async () => {
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name as string, tool]));
    const forecast = tools.get('forecast')!;
    assert.equal(getToolUiResourceUri(forecast), VIEW);
    assert.equal((forecast._meta as Record<string, unknown>)['ui/resourceUri'], VIEW);
    const input = forecast.inputSchema as {
      properties: Record<string, { type: string }>;
      required: string[];
    };
    assert.equal(input.properties.city?.type, 'string');
    assert.equal(input.properties.days?.type, 'integer');
    assert.deepEqual(input.required, ['city']);
    assert.equal(isToolVisibilityAppOnly(tools.get('refresh')!), true);
    const { contents } = await client.readResource({ uri: VIEW });
    assert.equal(contents[0]?.mimeType, RESOURCE_MIME_TYPE);
    assert.equal(contents[0]?.text, HTML);
  });

  test('calls are checked by the zod schemas, then reach the helpers’ callbacks with their arguments', async () => {
    const text = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
    assert.equal((await text('forecast', { city: 'Oslo', days: 3 })).content[0]?.text, 'Oslo for 3 day(s)');
    assert.equal((await text('forecast', { city: 'Oslo' })).content[0]?.text, 'Oslo for 1 day(s)');
    assert.equal((await text('refresh', { force: true })).content[0]?.text, 'forced: true');
    // An argument refused is a tool execution error the model can read (2025-11-25 on), naming the field.
    const refused = await text('forecast', { days: 2 });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]?.text ?? '', /city/);
  });
});
