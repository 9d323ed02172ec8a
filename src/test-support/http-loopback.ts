import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
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

/** A response read whole: status, headers and body text. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One node:http request to 127.0.0.1:`port`/mcp with exactly `headers` (fetch will not let a client set some,
 * such as Host and Origin), resolved once the whole response is read.
 */
export function rawRequest(
  port: number,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The body of a request a test server received, as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
  });
}

/** A request header as one value: a repeated one's values joined as node:http joins most. */
export function oneHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
