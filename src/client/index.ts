// `mcpwire/client`: everything a client author needs, named one by one: the portable client (`./portable.ts`,
// also `mcpwire/browser`) and, for Node, servers started as commands and spoken to over stdio.

// Node: the client finds `@opentelemetry/api` where it is installed (see src/telemetry/node.ts).
import '../telemetry/node.js';

export { connectStdio } from './negotiation/connect-stdio.js';
export * from './portable.js';
export {
  type StdioClientConnection,
  type StdioClientOptions,
  StdioProcessError,
  spawnStdio,
} from './stdio/stdio-client-connection.js';
export { stdioEnvironment } from './stdio/stdio-env.js';
