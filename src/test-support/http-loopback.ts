import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

/** A node:http server on 127.0.0.1 with an ephemeral port, for tests. */
export interface LoopbackServer {
  readonly port: number;
  /** Closes every connection, then the server. */
  close(): Promise<void>;
}

export function listenLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackServer> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A raw TCP connection to the server that has already sent `head`, for requests http clients refuse. */
export function rawConnect(port: number, head: string | Buffer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Everything the server sends on `socket` until it closes the connection, or until `done(text)` holds. */
export function readAll(socket: Socket, done?: (text: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (done?.(text)) resolve(text);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
  });
}
