import { createDemoServer } from '../demo/demo-server.js';
import { stdioServerConnection } from '../transport/stdio-server.js';

export interface ServeOptions {
  stdio: boolean;
}

/** `mcpwire serve`: the demo server on stdio. Resolves with the exit code when the client goes away. */
export function serve(options: ServeOptions): Promise<number> {
  if (!options.stdio) {
    process.stderr.write(
      'mcpwire serve: this build serves over stdio only; run `mcpwire serve --stdio` (HTTP serving is not built yet)\n',
    );
    return Promise.resolve(2);
  }
  const server = createDemoServer();
  const session = server.connect(stdioServerConnection());
  session.onerror = (err) => process.stderr.write(`mcpwire: ${err.message}\n`);
  process.stderr.write('mcpwire: serving the demo server on stdio\n');
  return new Promise((resolve) => {
    session.onclose = () => resolve(0);
    const stop = () => {
      server.close().finally(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
