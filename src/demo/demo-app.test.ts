import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../client/client.js';
import { APP_MIME_TYPE, APPS_EXTENSION } from '../extensions/apps/app-meta.js';
import { readView, viewOf } from '../extensions/apps/views.js';
import { createMemoryPair } from '../peer/memory.js';
import { createDemoServer } from './demo-server.js';

test("the demo's counter app: its view, a tool for each audience, and text for hosts without views", async () => {
  const server = createDemoServer();
  const connect = (extensions?: Record<string, Record<string, unknown>>) => {
    const [clientEnd, serverEnd] = createMemoryPair();
    server.connect(serverEnd);
    return new Client({ name: 'host', version: '1' }, { extensions }).connect(clientEnd);
  };
  const host = await connect({ [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } });
  const textOnly = await connect();
  const tools = new Map((await host.listTools()).tools.map((tool) => [tool.name, tool]));
  assert.deepEqual(viewOf(tools.get('counter')!), { uri: 'ui://demo/counter', visibility: ['model', 'app'] });
  assert.deepEqual(viewOf(tools.get('counter_increment')!)?.visibility, ['app']);
  assert.deepEqual(viewOf(tools.get('counter_reset')!)?.visibility, ['model']);
  const view = await readView(host, 'ui://demo/counter');
  assert.match(view.html, /ui\/initialize[\s\S]*counter_increment/);
  assert.deepEqual(view.ui, { prefersBorder: true });

  const call = async (session: typeof host, name: string) => {
    const result = await session.callTool(name, {});
    return [(result.content[0] as { text: string }).text, result.structuredContent];
  };
  assert.deepEqual(await call(host, 'counter_increment'), ['1', { count: 1 }]);
  assert.deepEqual(await call(host, 'counter'), ['1', { count: 1 }]);
  assert.deepEqual(await call(textOnly, 'counter'), ['The count is 1.', { count: 1 }]);
  assert.deepEqual(await call(textOnly, 'counter_reset'), ['The count is 0.', { count: 0 }]);
  await host.close();
  await textOnly.close();
});
