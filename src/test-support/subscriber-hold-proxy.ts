import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of one redis-server, that can hold what Redis sends to the connections that
 * subscribed (pub/sub): a process whose Redis is this proxy then hears the other processes late, or never, while
 * its commands go through as usual.
 */
export interface SubscriberHoldProxy {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * From now on, what Redis sends to a subscribed connection is kept, not delivered; and one whose client goes away
   * keeps its connection to Redis open (as when a host vanishes: Redis still counts it as a listener).
   */
  hold(): void;
  /** What is kept so far, as text. */
  held(): string;
  /** Delivers what was kept to the subscribers still connected, closes the others' connections, and holds no more. */
  release(): void;
  close(): Promise<void>;
}

interface Pipe {
  readonly client: Socket;
  readonly upstream: Socket;
  subscriber: boolean;
  clientGone: boolean;
  kept: Buffer[];
}

/** A command of the subscribe family, as a RESP bulk string. */
const SUBSCRIBE = /\r\n[sp]?subscribe\r\n/i;

/** Starts a proxy to the redis-server at `redisUrl` (`redis://127.0.0.1:<port>`). */
export async function startSubscriberHoldProxy(redisUrl: string): Promise<SubscriberHoldProxy> {
  const target = new URL(redisUrl);
  const pipes = new Set<Pipe>();
  let holding = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const pipe: Pipe = { client, upstream, subscriber: false, clientGone: false, kept: [] };
    pipes.add(pipe);
    client.on('data', (chunk: Buffer) => {
      if (SUBSCRIBE.test(chunk.toString('latin1'))) pipe.subscriber = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding && pipe.subscriber) pipe.kept.push(chunk);
      else if (!pipe.clientGone) client.write(chunk);
    });
    client.on('close', () => {
      pipe.clientGone = true;
      if (!(holding && pipe.subscriber)) upstream.destroy();
    });
    upstream.on('close', () => {
      pipes.delete(pipe);
      client.destroy();
    });
    client.on('error', ignore);
    upstream.on('error', ignore);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const release = () => {
    holding = false;
    for (const pipe of pipes) {
      if (pipe.clientGone) pipe.upstream.destroy();
      else for (const chunk of pipe.kept) pipe.client.write(chunk);
      pipe.kept = [];
    }
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    hold: () => {
      holding = true;
    },
    held: () => [...pipes].map((pipe) => Buffer.concat(pipe.kept).toString('utf8')).join(''),
    release,
    close: async () => {
      release();
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.upstream.destroy();
      }
      server.close();
      await once(server, 'close');
    },
  };
}

const ignore = (): void => {};
