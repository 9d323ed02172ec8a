// The host page apps.test.ts bundles (esbuild, platform browser) and opens in Chromium: mcpwire's browser client
// connected to `mcpwire serve` as a host that renders MCP Apps, and the ext-apps AppBridge between it and each
// view's iframe. A view's tool calls go through the host, which refuses a tool whose visibility leaves out
// views. The query names the server, the App-built view's page and the era: ?server=…/mcp&view=…/view.html&era=….
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  Client,
  connectUrl,
  readView,
  type Tool,
  viewOf,
} from 'mcpwire/browser';

const query = new URLSearchParams(location.search);
const client = new Client(
  { name: 'mcpwire-apps-host', version: '1.0.0' },
  {
    extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
    era: query.get('era') === 'legacy' ? 'legacy' : 'modern',
    requestTimeoutMs: 15_000,
  },
);
const session = await connectUrl(client, query.get('server') ?? '');
const tools = new Map<string, Tool>();
for await (const tool of session.tools()) tools.set(tool.name, tool);

const calls: string[] = [];
const log = document.getElementById('log')!;

/** A sandboxed iframe in its own section; the bridge is connected before anything loads in it. */
function frame(id: string, title: string): HTMLIFrameElement {
  const section = document.createElement('section');
  section.id = id;
  const heading = document.createElement('h2');
  heading.textContent = title;
  const iframe = document.createElement('iframe');
  iframe.sandbox.add('allow-scripts');
  section.append(heading, iframe);
  document.body.append(section);
  return iframe;
}

/**
 * Hosts a view of `tool` in `iframe`: the bridge answers its `ui/initialize`, then the host sends it the tool's
 * input and the result of calling the tool; the view's own calls go to the server unless the tool is not for views.
 */
async function host(iframe: HTMLIFrameElement, tool: string, load: () => void): Promise<void> {
  const bridge = new AppBridge(null, { name: 'mcpwire-apps-host', version: '1.0.0' }, { serverTools: {} });
  bridge.oncalltool = async (params) => {
    const view = viewOf(tools.get(params.name) ?? {});
    if (view === undefined || !view.visibility.includes('app')) {
      calls.push(`refused ${params.name}`);
      throw new Error(`${params.name} is not callable from a view (its visibility leaves out "app")`);
    }
    calls.push(`called ${params.name}`);
    const item = document.createElement('li');
    item.textContent = `the view called ${params.name}`;
    log.append(item);
    return session.callTool(params.name, params.arguments ?? {});
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  load();
  await initialized;
  await bridge.sendToolInput({ arguments: {} });
  await bridge.sendToolResult(await session.callTool(tool, {}));
}

const counter = viewOf(tools.get('counter') ?? {});

Object.assign(globalThis, {
  scenarios: {
    /** The demo's own view, its HTML read from the server and rendered as the spec says (srcdoc, sandboxed). */
    async demoView() {
      const { html, ui } = await readView(session, counter!.uri);
      const iframe = frame('demo', 'The demo server’s counter view');
      await host(iframe, 'counter', () => {
        iframe.srcdoc = html;
      });
      return { era: session.era, uri: counter!.uri, ui };
    },
    /** A view built with the ext-apps App class, served from its own origin. */
    async appView() {
      const iframe = frame('app', 'A view built with @modelcontextprotocol/ext-apps');
      await host(iframe, 'counter', () => {
        iframe.src = query.get('view') ?? '';
      });
      return { era: session.era };
    },
    calls: () => calls,
  },
});
