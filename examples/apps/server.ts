// An MCP App: a tool whose result a host shows in an interactive view, on stdio (`npx tsx server.ts`).
import { registerApp, rendersApps } from 'mcpwire/apps';
import { Server, serveStdio } from 'mcpwire/server';

const server = new Server({ name: 'dice', version: '1.0.0' });

const app = registerApp(server, {
  uri: 'ui://dice/roll',
  name: 'Dice',
  // A view is a whole HTML document; a host renders it in a sandboxed iframe and passes it the tool's result.
  html: '<!doctype html><html><body><p id="roll">…</p></body></html>',
  prefersBorder: true,
});

app.tool(
  {
    name: 'roll',
    description: 'Rolls a die',
    inputSchema: { type: 'object', properties: { sides: { type: 'number' } } },
  },
  ({ sides }, ctx) => {
    const roll = 1 + Math.floor(Math.random() * (Number(sides) || 6));
    // Text for every host; the view reads structuredContent. A host without views gets a sentence.
    const text = rendersApps(ctx.scope) ? String(roll) : `You rolled ${roll}.`;
    return { content: [{ type: 'text', text }], structuredContent: { roll } };
  },
);

serveStdio(server);
