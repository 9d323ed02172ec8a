// A server with one tool, on stdio: run it as a command (`npx tsx server.ts`) from any MCP client.
import { Server, serveStdio } from 'mcpwire/server';

const server = new Server(
  { name: 'weather', version: '1.0.0' },
  { instructions: 'Ask me about the weather.' },
);

server.tool(
  {
    name: 'forecast',
    description: 'Forecast for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  async ({ city }, ctx) => {
    await ctx.log('info', `looking up ${city}`);
    return { content: [{ type: 'text', text: `Sunny in ${city}` }] };
  },
);

serveStdio(server); // both eras: the first message picks 2026-07-28 (its _meta claims it) or a 2025 session
