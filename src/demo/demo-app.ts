import { registerApp } from '../extensions/apps/register-app.js';
import { rendersApps } from '../extensions/apps/renders-apps.js';
import type { Server } from '../server/server.js';

/** The counter's view: plain HTML and the few lines of JSON-RPC over postMessage a view speaks to its host. */
const COUNTER_VIEW = `<!doctype html>
<html><head><meta charset="utf-8"><title>Counter</title>
<style>body{font:16px system-ui,sans-serif;margin:12px}output{font-size:32px;display:block;margin:8px 0}</style>
</head><body><output id="count">…</output><button id="up" disabled>+1</button> <span id="note"></span>
<script>
let next = 1; const waiting = new Map();
const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
const ask = (method, params) => new Promise((resolve, reject) => {
  const id = next++; waiting.set(id, { resolve, reject }); send({ id, method, params });
});
const show = (result) => { const count = result?.structuredContent?.count; if (count !== undefined) document.getElementById('count').textContent = count; };
window.addEventListener('message', ({ data }) => {
  if (data?.jsonrpc !== '2.0') return;
  if (data.id !== undefined && waiting.has(data.id)) {
    const { resolve, reject } = waiting.get(data.id); waiting.delete(data.id);
    data.error ? reject(new Error(data.error.message)) : resolve(data.result);
  } else if (data.method === 'ui/notifications/tool-result') show(data.params);
});
ask('ui/initialize', { appInfo: { name: 'counter', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26' })
  .then(() => { send({ method: 'ui/notifications/initialized' }); document.getElementById('up').disabled = false; });
document.getElementById('up').onclick = () => ask('tools/call', { name: 'counter_increment', arguments: {} })
  .then(show, (error) => { document.getElementById('note').textContent = error.message; });
</script></body></html>
`;

const EMPTY = { type: 'object', properties: {} } as const;

/**
 * The demo's MCP App: `counter` shows a count in a view (and says it in text to hosts without views);
 * `counter_increment` is for the view only, `counter_reset` for the model only. One count per server.
 */
export function addCounterApp(server: Server): void {
  let count = 0;
  const answer = (text: string) => ({
    content: [{ type: 'text' as const, text }],
    structuredContent: { count },
  });
  const app = registerApp(server, {
    uri: 'ui://demo/counter',
    name: 'counter',
    title: 'Counter view',
    html: COUNTER_VIEW,
    prefersBorder: true,
  });
  app.tool(
    {
      name: 'counter',
      title: 'Counter',
      description: 'Shows the count in an interactive view (MCP Apps), or says it to hosts without views.',
      inputSchema: EMPTY,
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => answer(rendersApps(ctx.scope) ? `${count}` : `The count is ${count}.`),
  );
  app.tool(
    {
      name: 'counter_increment',
      description: "The counter view's +1 button.",
      inputSchema: EMPTY,
      visibility: ['app'],
    },
    () => {
      count++;
      return answer(`${count}`);
    },
  );
  app.tool(
    {
      name: 'counter_reset',
      description: 'Sets the count back to 0.',
      inputSchema: EMPTY,
      visibility: ['model'],
    },
    () => {
      count = 0;
      return answer('The count is 0.');
    },
  );
}
