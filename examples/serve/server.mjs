// A server for `mcpwire serve examples/serve/server.mjs`: the command serves it over HTTP in both eras (or
// --stdio), with every flag of `mcpwire serve` (--workers, --redis, OAuth, CORS, logs). A function that gets
// what the flags call for and makes the Server: spread it into the options.
import { Server } from 'mcpwire/server';

/** @param {import('mcpwire/server').ServeDeployment} deployment */
export default function weather(deployment) {
  const server = new Server({ name: 'weather', version: '1.0.0' }, { ...deployment });
  server.tool(
    {
      name: 'forecast',
      description: 'Forecast for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    async ({ city }) => ({ content: [{ type: 'text', text: `Sunny in ${city}` }] }),
  );
  return server;
}
