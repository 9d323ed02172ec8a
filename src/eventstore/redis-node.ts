/** A node of a Redis Cluster to start from, as `createRedisClusterClient` takes it. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

/**
 * Reads `host:port` (port 6379 when absent) or `redis://[user:password@]host:port` (`rediss://` for TLS); throws a
 * RangeError naming `text` otherwise.
 */
export function parseRedisNode(text: string): RedisNode {
  const refused = () =>
    new RangeError(`"${text}" is not the address of a Redis node (host:port, or redis://host:port)`);
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `redis://${text}`);
  } catch {
    throw refused();
  }
  const path = url.pathname === '' || url.pathname === '/';
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '' || !path)
    throw refused();
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    tls: url.protocol === 'rediss:',
  };
}
