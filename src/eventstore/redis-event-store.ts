import { createHash } from 'node:crypto';
import { EventsPurgedError, StreamClosedError, UnknownEventError, UnknownStreamError } from './errors.js';
import type { EventStore, Replay } from './event-store.js';
import { connectRedis, isRedisAddress, type RedisAddress } from './redis-address.js';
import {
  commandTimeoutOf,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  isClusterClient,
  type RedisClient,
  whenRedisReady,
} from './redis-client.js';
import { AFTER_LUA, WRITE_LUA } from './redis-event-scripts.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export interface RedisEventStoreOptions {
  /**
   * An address (`redis://host:port`, or `{ cluster: ['host:port', …] }` for a Redis Cluster): the store opens its
   * own client with `connectRedis` (fail fast while Redis is down, reconnect forever) and `close()` ends it. Or a
   * client to share (ioredis's `Redis` or `Cluster`): the store never closes it, and it should be made by
   * `createRedisClient` or `createRedisClusterClient` too, because with ioredis's defaults a command cut off by a
   * lost connection is sent again once it is back, which could store an event twice.
   */
  redis: RedisClient | RedisAddress;
  /** Start of every key the store writes. Default 'mcpwire:events'. */
  keyPrefix?: string;
  /** A stream holds at most this many of its latest events; older ones are purged. Default 1000. */
  maxEventsPerStream?: number;
  /**
   * A stream holds at most this many bytes (UTF-8) of event data, its latest events; older ones are purged, and
   * an event larger than this is purged at once (it still goes out live). Default 4 MiB.
   */
  maxBytesPerStream?: number;
  /**
   * Seconds a session's records live after its last write (open, append, streamClosed); a stream's events live
   * this long after its last append. This bounds what sessions abandoned without `sessionClosed` (a process
   * killed) leave in Redis. Keep it longer than the session idle timeout: a session silent for longer loses its
   * streams. Default 3600.
   */
  ttlSeconds?: number;
  /**
   * Wraps each command sent to Redis (`events.write`, `events.replay`, `events.forget`), e.g. to time it: the
   * cluster passes its telemetry's, so that a traced request shows its event-store round trips as child spans.
   */
  roundTrip?: RoundTrip;
}

/** Runs `run`, which sends one command (or script) to Redis, as `operation`. */
export type RoundTrip = <T>(operation: string, run: () => Promise<T>) => Promise<T>;

const positiveInteger = (name: string, value: number) => {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
};

/** A Lua script and the SHA1 that EVALSHA names it by. */
interface Script {
  readonly lua: string;
  readonly sha: string;
  /** What `roundTrip` calls it. */
  readonly operation: string;
}

const script = (lua: string, operation: string): Script => ({
  lua,
  sha: createHash('sha1').update(lua).digest('hex'),
  operation,
});
const WRITE = script(WRITE_LUA, 'events.write');
const AFTER = script(AFTER_LUA, 'events.replay');
const SCRIPTS = [WRITE, AFTER];

/** Calls on one stream waiting to be sent as one WRITE script. */
interface Batch {
  readonly session: string;
  readonly streamId: string;
  /** The script's keys and arguments: the stream's, then each operation's. */
  readonly args: string[];
  /** One per operation, in order. */
  readonly waiters: Array<{ resolve(result: number): void; reject(err: unknown): void }>;
}

type AfterReply = [0, 0 | 1, string[]] | [1] | [2 | 3, number];

/**
 * An EventStore in Redis, shared by every process that uses the same Redis and key prefix: a stream resumed
 * through another process replays what this one stored. Every method answers with a promise, and rejects with
 * StoreUnavailableError when Redis cannot be reached or does not answer within the client's command timeout
 * (at once while the client is reconnecting); the store works again as soon as its client reconnects.
 *
 * Keys (`h` is the first 128 bits of SHA-256 of the session id, base64url: the keyspace never shows a session id,
 * which is a credential, and `{h}` puts all of a session's keys in one hash slot of a Redis Cluster, so that every
 * script and command touches one slot, with each key it touches named in its KEYS):
 * - `<prefix>:{h}`, a hash: per stream, its next index, the bytes it holds, and whether it is closed. It lists
 *   the session's streams, and a stream is only found through it, so never through another session.
 * - `<prefix>:{h}:<stream id>`, a Redis stream: its held events, event `i` under entry id `<i + 1>-0`.
 * Each operation is one Lua script (see redis-event-scripts.ts), so each is atomic: appends are numbered by a
 * counter, never a clock, and a replay is checked against purging and read in one step. Writes to one stream made
 * one after the other in the same turn (open, append, streamClosed) share one script: one round trip.
 *
 * Bounds: per stream `maxEventsPerStream` and `maxBytesPerStream` (exact: the oldest events are removed first),
 * and `ttlSeconds` for everything, refreshed by each write. Data is stored as UTF-8, so it must be well-formed
 * text (every string JSON.stringify makes is). A replay stays in call order with the appends before it; the one
 * exception is Redis forgetting its scripts while appends are in flight (SCRIPT FLUSH, or a Redis Cluster's
 * failover to a replica, which has none loaded), which can reorder them.
 */
export class RedisEventStore implements EventStore {
  readonly keyPrefix: string;
  readonly maxEventsPerStream: number;
  readonly maxBytesPerStream: number;
  readonly ttlSeconds: number;
  private readonly client: RedisClient;
  private readonly ownsClient: boolean;
  private readonly readyTimeoutMs: number;
  private readonly roundTrip: RoundTrip | undefined;
  // Script arguments that never change, as Redis receives them.
  private readonly ttlArg: string;
  private readonly maxEventsArg: string;
  private readonly maxBytesArg: string;
  /**
   * The connection (socket) the scripts were last loaded on: a new connection may reach a restarted Redis. For a
   * Redis Cluster, the client: scripts are loaded on the masters once, and a master that lacks them (a replica
   * that took over) gets them by EVAL.
   */
  private loadedOn: unknown;
  /** The connection and script loading under way, which calls wait for. */
  private preparing: Promise<void> | undefined;
  /** Calls waiting for `preparing`: while any is, later calls queue behind them so that call order holds. */
  private waiting = 0;
  /** Operations called since the last flush, one batch per run of calls on one stream, in call order. */
  private batches: Batch[] | undefined;
  // The last session's key: a burst of appends hashes its session id once.
  private lastSessionId = '';
  private lastSessionKey = '';

  constructor(options: RedisEventStoreOptions) {
    this.keyPrefix = options.keyPrefix ?? 'mcpwire:events';
    this.maxEventsPerStream = positiveInteger('maxEventsPerStream', options.maxEventsPerStream ?? 1000);
    this.maxBytesPerStream = positiveInteger(
      'maxBytesPerStream',
      options.maxBytesPerStream ?? 4 * 1024 * 1024,
    );
    this.ttlSeconds = positiveInteger('ttlSeconds', options.ttlSeconds ?? 3600);
    this.ttlArg = String(this.ttlSeconds);
    this.maxEventsArg = String(this.maxEventsPerStream);
    this.maxBytesArg = String(this.maxBytesPerStream);
    this.ownsClient = isRedisAddress(options.redis);
    this.client = isRedisAddress(options.redis) ? connectRedis(options.redis) : options.redis;
    this.readyTimeoutMs = commandTimeoutOf(this.client) ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
    this.roundTrip = options.roundTrip;
  }

  async open(sessionId: string, streamId: string): Promise<void> {
    await this.write(sessionId, streamId, 'o', undefined);
  }

  async append(sessionId: string, streamId: string, data: string): Promise<number> {
    const index = await this.write(sessionId, streamId, 'a', data);
    if (index === -1) throw new UnknownStreamError(streamId);
    if (index === -2) throw new StreamClosedError(streamId);
    return index;
  }

  async after(sessionId: string, streamId: string, index: number): Promise<Replay> {
    if (!Number.isInteger(index) || index < -1) {
      throw new RangeError(`index must be an integer >= -1, got ${index}`);
    }
    const session = this.sessionKey(sessionId);
    this.flush();
    const reply = (await this.run(
      AFTER,
      session,
      `${session}:${streamId}`,
      streamId,
      String(index),
    )) as AfterReply;
    switch (reply[0]) {
      case 0:
        return { events: reply[2], closed: reply[1] === 1 };
      case 1:
        throw new UnknownStreamError(streamId);
      case 2:
        throw new UnknownEventError(streamId, index, reply[1]);
      default:
        throw new EventsPurgedError(streamId, index, reply[1]);
    }
  }

  async streamClosed(sessionId: string, streamId: string): Promise<void> {
    await this.write(sessionId, streamId, 'c', undefined);
  }

  async sessionClosed(sessionId: string): Promise<void> {
    const session = this.sessionKey(sessionId);
    this.flush();
    // Every key of the session is in its slot: one UNLINK deletes the streams the hash lists, and the hash. A
    // stream another process opens meanwhile keeps its events until their TTL.
    const fields = await this.command('events.forget', () => this.client.hkeys(session));
    const streams = fields.filter((f) => f.startsWith('n:')).map((f) => `${session}:${f.slice(2)}`);
    await this.command('events.forget', () => this.client.unlink(session, ...streams));
  }

  /** Stops using the client, and ends it when the store opened it (from a URL). What Redis holds stays. */
  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /** The key of the session whose id hashes to `h` (see the class comment): where a script finds its streams. */
  sessionKeyOf(h: string): string {
    return `${this.keyPrefix}:{${h}}`;
  }

  /** The key of the Redis stream holding the events of stream `streamId` of that session. */
  streamKeyOf(h: string, streamId: string): string {
    return `${this.sessionKeyOf(h)}:${streamId}`;
  }

  /** `<prefix>:{h}`: see the class comment. */
  private sessionKey(sessionId: string): string {
    if (sessionId !== this.lastSessionId) {
      this.lastSessionId = sessionId;
      this.lastSessionKey = this.sessionKeyOf(
        createHash('sha256').update(sessionId).digest().subarray(0, 16).toString('base64url'),
      );
    }
    return this.lastSessionKey;
  }

  /**
   * Runs operation `op` (with `data`, for an append: see WRITE_FUNCTION) on a stream, and answers its result.
   * Operations on one stream called one after the other, before the microtasks of this turn end, run as one
   * script: a stream opened, primed, answered and closed in one go costs one round trip.
   */
  private write(sessionId: string, streamId: string, op: string, data: string | undefined): Promise<number> {
    const session = this.sessionKey(sessionId);
    let batches = this.batches;
    if (batches === undefined) {
      batches = this.batches = [];
      queueMicrotask(this.flush);
    }
    let batch = batches[batches.length - 1];
    if (batch === undefined || batch.session !== session || batch.streamId !== streamId) {
      const args = [
        session,
        `${session}:${streamId}`,
        streamId,
        this.ttlArg,
        this.maxEventsArg,
        this.maxBytesArg,
      ];
      batch = { session, streamId, args, waiters: [] };
      batches.push(batch);
    }
    batch.args.push(op);
    if (data !== undefined) batch.args.push(data);
    const waiters = batch.waiters;
    return new Promise((resolve, reject) => {
      waiters.push({ resolve, reject });
    });
  }

  /** Sends the operations gathered so far, each stream's as one script, in call order (before any later call). */
  private readonly flush = (): void => {
    const batches = this.batches;
    if (batches === undefined) return;
    this.batches = undefined;
    for (const { args, waiters } of batches) {
      this.run(WRITE, ...args).then(
        (results) => {
          for (let i = 0; i < waiters.length; i++) waiters[i].resolve((results as number[])[i]);
        },
        (err) => {
          for (const waiter of waiters) waiter.reject(err);
        },
      );
    }
  };

  /**
   * Runs script `s` once the connection is ready and has the scripts: the first two of `args` are its keys (the
   * session's, then the stream's), the rest its ARGV. Every failure becomes a StoreUnavailableError.
   */
  private run(s: Script, ...args: string[]): Promise<unknown> {
    return this.command(s.operation, async () => {
      try {
        return await this.client.evalsha(s.sha, 2, ...args);
      } catch (err) {
        if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
        // Redis lost its scripts while connected (SCRIPT FLUSH, a replica that took over): EVAL sends the text and
        // loads it again.
        return await this.client.eval(s.lua, 2, ...args);
      }
    });
  }

  /**
   * Sends what `send` sends once the connection is ready and has the scripts, after every call made before it.
   * Every failure becomes a StoreUnavailableError.
   */
  private async command<T>(operation: string, send: () => Promise<T>): Promise<T> {
    const ready = this.client.status === 'ready' && this.connection() === this.loadedOn;
    if (!ready || this.waiting > 0) {
      if (!ready) this.preparing ??= this.prepare();
      this.waiting++;
      try {
        await this.preparing;
      } finally {
        this.waiting--;
      }
    }
    try {
      return await (this.roundTrip === undefined ? send() : this.roundTrip(operation, send));
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** What `loadedOn` is compared with: see there. */
  private connection(): unknown {
    return isClusterClient(this.client) ? this.client : this.client.stream;
  }

  /**
   * Waits for the connection and loads the scripts into Redis, so that EVALSHA finds them: after a restart
   * Redis has none, and loading them once here keeps concurrent appends in order (see the class comment).
   */
  private async prepare(): Promise<void> {
    try {
      await whenRedisReady(this.client, this.readyTimeoutMs);
      const client = this.client;
      if (isClusterClient(client)) {
        // On every master that answers; one that does not (down, or taken over since) gets them by EVAL.
        const masters = client.nodes('master');
        await Promise.allSettled(masters.flatMap((m) => SCRIPTS.map((s) => m.script('LOAD', s.lua))));
      } else {
        await Promise.all(SCRIPTS.map((s) => client.script('LOAD', s.lua)));
      }
      this.loadedOn = this.connection();
    } catch (err) {
      throw unavailable(err);
    } finally {
      this.preparing = undefined;
    }
  }
}

/** The error a caller gets for a failed Redis call: what happened, in words an operator can act on. */
function unavailable(err: unknown): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err;
  const message = err instanceof Error ? err.message : String(err);
  let detail: string;
  if (err instanceof Error && err.name === 'MaxRetriesPerRequestError') {
    detail = 'the connection to Redis was lost with the command in flight (it may or may not have run)';
  } else if (message.startsWith("Stream isn't writeable")) {
    detail = 'Redis is not connected';
  } else if (message === 'Command timed out') {
    detail = 'Redis did not answer in time (the command may or may not have run)';
  } else {
    detail = `Redis failed (${message})`;
  }
  return new StoreUnavailableError(detail, { cause: err });
}
