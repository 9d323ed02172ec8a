import cluster from 'node:cluster';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What the primary sends a worker that a new one replaces (see superviseWorkers). */
export const RETIRE_MESSAGE = 'mcpwire:retire';

/**
 * How a worker that a new one replaces hands its clients over without failing a request. Closing an idle
 * keep-alive connection races a client that is sending on it at that moment, and that client cannot tell
 * whether its POST ran. So a retiring worker stops taking connections (new ones reach its successor), answers
 * what still arrives on the open ones with `Connection: close`, and waits for its clients to drop the idle ones
 * themselves, which they do ahead of the `Keep-Alive: timeout` the server advertised.
 *
 * Made before the server's own request listener, so that its header is set before any answer is written.
 */
export class Handoff {
  private readonly idle = new Set<Socket>();
  private retiring = false;
  private settle: (() => void) | undefined;

  constructor(private readonly http: HttpServer) {
    http.on('connection', (socket: Socket) => {
      this.idle.add(socket);
      socket.once('close', () => {
        this.idle.delete(socket);
        this.check();
      });
    });
    http.on('request', (req, res) => {
      const { socket } = req;
      this.idle.delete(socket);
      if (this.retiring) res.setHeader('connection', 'close');
      res.once('close', () => {
        if (!socket.destroyed) this.idle.add(socket);
        this.check();
      });
    });
  }

  /**
   * Calls `retired` when the primary says a new worker serves in this one's place. Nothing outside a worker.
   */
  onRetire(retired: () => void): void {
    if (!cluster.isWorker) return;
    process.on('message', (message) => {
      if (message === RETIRE_MESSAGE) retired();
    });
  }

  /**
   * Stops taking connections and resolves once no open one is idle (answers still being written may go on), or
   * one second past the server's keep-alive timeout, by which the server has closed any left itself.
   */
  retire(): Promise<void> {
    this.retiring = true;
    // net's close, not http's: http's drops the idle connections at once, which is the race this avoids.
    NetServer.prototype.close.call(this.http);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle?.(), this.http.keepAliveTimeout + 1000);
      this.settle = () => {
        clearTimeout(timer);
        this.settle = undefined;
        resolve();
      };
      this.check();
    });
  }

  private check(): void {
    if (this.idle.size === 0) this.settle?.();
  }
}
