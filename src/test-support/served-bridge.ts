import { fileURLToPath } from 'node:url';
import { type Bridge, type BridgeOptions, bridgeServer } from '../host/bridge-server.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { serveOn } from './mcp-http.js';
import { within } from './time-limit.js';

const CHILD = fileURLToPath(new URL('./bridge-child.ts', import.meta.url));

/** How to start the fault-test child (bridge-child.ts, under tsx) with `flags`. */
export function bridgeChild(...flags: string[]): { command: { command: string; args: string[] } } {
  return {
    command: { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), CHILD, ...flags] },
  };
}

/** A bridge served over Streamable HTTP on 127.0.0.1 for a test: its URL, and `close` for both. */
export async function serveBridge(
  options: BridgeOptions,
): Promise<{ bridge: Bridge; url: string; close(): Promise<void> }> {
  const bridge = await within(bridgeServer(options), 20_000, 'the bridge to start');
  const served = await serveOn(new StreamableHTTPHandler(bridge.server).node());
  return {
    bridge,
    url: served.url,
    close: async () => {
      await served.close();
      await bridge.close();
    },
  };
}
