import { createHash } from 'node:crypto';
import {
  commandTimeoutOf,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  isClusterClient,
  type RedisClient,
  whenRedisReady,
} from '../../eventstore/redis-client.js';
import { connectNodes } from '../../eventstore/redis-cluster-client.js';
import { StoreUnavailableError } from '../../eventstore/store-unavailable-error.js';
import {
  CANCEL_LUA,
  CREATE_LUA,
  FINISHED_LUA,
  GET_LUA,
  INDEX_LUA,
  RESPOND_LUA,
  TAKE_LUA,
  UPDATE_LUA,
} from './redis-task-scripts.js';

/** A Lua script and the SHA1 that EVALSHA names it by. */
export interface Script {
  readonly lua: string;
  readonly sha: string;
}

const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });

/** The scripts of redis-task-scripts.ts. */
export const SCRIPTS = {
  create: script(CREATE_LUA),
  get: script(GET_LUA),
  update: script(UPDATE_LUA),
  respond: script(RESPOND_LUA),
  cancel: script(CANCEL_LUA),
  take: script(TAKE_LUA),
  index: script(INDEX_LUA),
  finished: script(FINISHED_LUA),
};

/** Commands and scripts through one client, every failure a StoreUnavailableError. */
export class RedisTaskCommands {
  private readonly readyTimeoutMs: number;
  /**
   * A Redis Cluster's client connects to a node at its first command, and a command meanwhile fails: the first
   * command after each (re)connection waits until every node is connected.
   */
  private nodes: Promise<void> | undefined;

  constructor(readonly client: RedisClient) {
    this.readyTimeoutMs = commandTimeoutOf(client) ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
    client.on('ready', this.reconnected);
  }

  /** Stops following the client. */
  dispose(): void {
    this.client.off('ready', this.reconnected);
  }

  /** Runs script `s` (EVALSHA, or EVAL when Redis lacks it: restarted, or a replica that took over). */
  run(s: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.command(async () => {
      try {
        return await this.client.evalsha(s.sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
        return await this.client.eval(s.lua, keys.length, ...keys, ...args);
      }
    });
  }

  /** What `send` sends, once the client is ready (at once while it is reconnecting: that fails). */
  async command<T>(send: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      const client = this.client;
      if (client.status !== 'ready') await whenRedisReady(client, this.readyTimeoutMs);
      if (isClusterClient(client)) {
        this.nodes ??= connectNodes(client, this.readyTimeoutMs);
        await this.nodes;
      }
      return await send(client);
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err.as('task store');
      const message = err instanceof Error ? err.message : String(err);
      throw new StoreUnavailableError(`Redis failed (${message})`, { cause: err, store: 'task store' });
    }
  }

  private readonly reconnected = (): void => {
    this.nodes = undefined;
  };
}
