import { Agent, request } from 'node:http';
import { listenLoopback } from './http-loopback.js';

/** A reverse proxy on 127.0.0.1 that tears one response stream, and what went through it. */
export interface CuttingProxy {
  readonly port: number;
  /** Every request that went through, in order: its method and its Last-Event-ID header. */
  readonly seen: { method: string; lastEventId: string | undefined }[];
  /** True once the response was cut. */
  wasCut(): boolean;
  close(): Promise<void>;
}

/**
 * An HTTP reverse proxy to 127.0.0.1:`target` that cuts the response to the first POST whose body contains
 * `cutOn` after `cutAfter` body bytes (closing both connections mid-stream): the event in progress is torn, as
 * when a connection drops. Everything else passes untouched, Host rewritten to the target's.
 */
export async function startCuttingProxy(
  target: number,
  cutOn: string,
  cutAfter: number,
): Promise<CuttingProxy> {
  const agent = new Agent({ keepAlive: false });
  const seen: CuttingProxy['seen'] = [];
  let cut = false;
  const server = await listenLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? '',
        lastEventId: req.headers['last-event-id'] as string | undefined,
      });
      const cutThis = !cut && req.method === 'POST' && body.toString('utf8').includes(cutOn);
      if (cutThis) cut = true;
      const upstream = request(
        {
          host: '127.0.0.1',
          port: target,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: `127.0.0.1:${target}` },
          agent,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          if (!cutThis) {
            up.pipe(res);
            return;
          }
          let sent = 0;
          up.on('data', (chunk: Buffer) => {
            if (sent + chunk.length < cutAfter) {
              sent += chunk.length;
              res.write(chunk);
              return;
            }
            // Flush the bytes up to the cut, then drop both connections: the event in progress is torn.
            res.write(chunk.subarray(0, cutAfter - sent), () => res.socket?.destroy());
            sent = cutAfter;
            up.destroy();
          });
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  return {
    port: server.port,
    seen,
    wasCut: () => cut,
    close: async () => {
      await server.close();
      agent.destroy();
    },
  };
}
