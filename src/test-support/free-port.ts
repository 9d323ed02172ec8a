import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: for a child process told which port to listen on, a
 * server restarted on the same port, or a URL where nothing listens. Another process may take it meanwhile;
 * on loopback, in a test, that is rare enough.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
