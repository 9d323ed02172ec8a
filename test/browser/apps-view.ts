// The view apps.test.ts bundles and serves from its own origin: built with @modelcontextprotocol/ext-apps' App
// class. It shows the tool's input and result it is sent, then calls a tool meant for views (allowed) and one
// meant only for the model (refused by the host), and shows what each answered.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const app = new App({ name: 'mcpwire-apps-test-view', version: '1.0.0' });
const show = (id: string, text: string) => {
  document.getElementById(id)!.textContent = text;
};
const countOf = (result: { structuredContent?: unknown }) =>
  String((result.structuredContent as { count?: number } | undefined)?.count);

app.ontoolinput = (params) => show('input', JSON.stringify(params.arguments ?? {}));
app.ontoolresult = async (result) => {
  show('count', countOf(result));
  show('increment', countOf(await app.callServerTool({ name: 'counter_increment', arguments: {} })));
  try {
    await app.callServerTool({ name: 'counter_reset', arguments: {} });
    show('refused', 'not refused');
  } catch (err) {
    show('refused', (err as Error).message);
  }
};
await app.connect(new PostMessageTransport(window.parent, window.parent));
show('connected', 'connected');
