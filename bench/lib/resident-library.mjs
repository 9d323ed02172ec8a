// mcpwire resident in a process whose requests something else serves: a --import for the ceiling, to measure what
// the library costs a request it does not touch (its code warmed through node:http's shared functions, its heap).
//
//   node --import ./bench/lib/resident-library.mjs bench/ceiling.mjs --port 3000
//   RESIDENT_ANSWERS=sse|json (default json): how the resident handler answered while it was warmed
//   RESIDENT_SCENARIO=calls|modern (default calls): the bench.mjs scenario that warms it, from a process of its own
//   RESIDENT_SECONDS (default 3): for how long
//   RESIDENT_LIB=DIR/index.js: another build of mcpwire (default ../../dist/index.js)
//
// It serves the bench's echo tool on a port of its own, warms it under bench.mjs (8 clients; the load runs
// in another process, so none of its code is in this one), then closes that port and keeps the server and handler
// alive. The ceiling starts listening only then: a module given to --import is evaluated before the main one.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ECHO_TOOL, echo } from './echo-tool.mjs';

const lib = process.env.RESIDENT_LIB;
const { Server, StreamableHTTPHandler } = await import(
  lib === undefined ? new URL('../../dist/index.js', import.meta.url).href : pathToFileURL(lib).href
);
const answers = process.env.RESIDENT_ANSWERS ?? 'json';
if (answers !== 'json' && answers !== 'sse') {
  throw new Error(`RESIDENT_ANSWERS is json or sse, not ${answers}`);
}
const scenario = process.env.RESIDENT_SCENARIO ?? 'calls';
if (scenario !== 'calls' && scenario !== 'modern') {
  throw new Error(`RESIDENT_SCENARIO is calls or modern, not ${scenario}`);
}

const server = new Server({ name: 'resident', version: '0.1.0' });
server.tool(ECHO_TOOL, echo);
const handler = new StreamableHTTPHandler(server, { jsonResponse: answers === 'json' });
const listener = http.createServer(handler.node());
await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));

const load = spawn(
  process.execPath,
  [
    fileURLToPath(new URL('../bench.mjs', import.meta.url)),
    scenario,
    '--url',
    `http://127.0.0.1:${listener.address().port}/mcp`,
    '--duration',
    process.env.RESIDENT_SECONDS ?? '3',
    '--warmup',
    '0',
    '--sessions',
    '8',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const code = await new Promise((resolve) => load.once('exit', resolve));
if (code !== 0) throw new Error(`the resident library's warm-up load exited with ${code}`);
listener.close();
listener.closeAllConnections();
// Held as a server keeps its own: the library's objects stay in the heap while the ceiling serves.
globalThis.residentLibrary = { server, handler };
