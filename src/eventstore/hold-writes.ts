import { isClusterClient, type RedisClient } from './redis-client.js';

/** Sockets held by `holdWrites` until the end of the current turn of the event loop. */
const held = new WeakSet<object>();

const release = (socket: { uncork(): void }) => {
  held.delete(socket);
  socket.uncork();
};

/**
 * Holds what is written to `client`'s connection from now until the end of this turn of the event loop, then
 * sends it in one write: the commands of every request served in one turn (one per tool call: its stream's
 * script) leave in one system call instead of one each, and Redis reads them in one too. Commands keep their
 * order on the connection and nothing waits for a later turn: `setImmediate` runs once this turn's I/O callbacks
 * are done. A Redis Cluster's client has one connection per node; it is left as it is.
 */
export function holdWrites(client: RedisClient): void {
  if (isClusterClient(client)) return;
  const socket = client.stream;
  if (socket === undefined || held.has(socket)) return;
  held.add(socket);
  socket.cork();
  setImmediate(release, socket);
}
