import { Client, type ClientOptions } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import { RequestTimeoutError } from '../peer/errors.js';
import type { Implementation } from '../protocol/types.js';
import { type Clock, systemClock } from '../util/clock.js';

/** How a bridge's upstream (a stdio child, or a remote server) is reached, watched and reached again. */
export interface ChildSettings {
  /** What to call it in messages: the command, or the URL. */
  readonly label: string;
  /** Opens a session with it for `client` (a stdio child spawned, a remote server connected to). */
  connect(client: Client, signal: AbortSignal): Promise<ClientSession>;
  /** Who the bridge is to the child, and what it can do for it (the relayed sampling and elicitation). */
  readonly client: { info: Implementation; options: ClientOptions };
  /** How long the child may take to answer its handshake. */
  readonly handshakeTimeoutMs: number;
  /** The first wait before starting a child that exited; doubled after each exit in a row, up to `maxBackoffMs`. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Exits this close together (each within `maxBackoffMs` of starting) make a crash loop, reported once. */
  readonly crashLoopExits: number;
  /** What the operator should hear: a child started, exited, looping. */
  report(message: string): void;
  clock?: Clock;
}

/** What a bridge hears of its child's life. */
export interface ChildEvents {
  /** A session with the child is up (its first, or one after a restart). */
  up(session: ClientSession): void;
  /** The child is gone: requests in flight have failed; it starts again after `retryAfterMs`. */
  down(retryAfterMs: number): void;
}

/**
 * One server the bridge serves (a stdio child process, or a remote server), and the client session it speaks to
 * it through. It is reached at once; when its session ends (a child exits, a remote cannot be reached any more) or
 * never completes its handshake within `handshakeTimeoutMs`, its requests in flight fail with an error that says
 * why (for a child, its exit code or signal and last stderr lines: the stdio client transport's), and it is
 * reached again after a backoff that doubles with each loss in a row, bounded; one that keeps failing is reported
 * as a crash loop, once until it stays up. `close` ends it for good.
 */
export class Upstream {
  /** The session with the child while it is up. */
  session: ClientSession | undefined;
  /** When the child will be started again, while it is down (ms since epoch, the clock's). */
  private restartAt = 0;
  private exitsInRow = 0;
  private startedAt = 0;
  private timer: unknown;
  private closed = false;
  private looping = false;
  private readonly clock: Clock;
  private readonly client: Client;

  constructor(
    private readonly settings: ChildSettings,
    private readonly events: ChildEvents,
  ) {
    this.clock = settings.clock ?? systemClock;
    this.client = new Client(settings.client.info, settings.client.options);
  }

  /** Starts the child; resolves once its first handshake succeeded, rejects with why it failed (it retries). */
  start(): Promise<ClientSession> {
    return this.spawn();
  }

  /** How long until the child is started again; 0 while it is up or starting. */
  retryAfterMs(): number {
    return this.session !== undefined ? 0 : Math.max(0, this.restartAt - this.clock.now());
  }

  /** Ends the child (its stdin closed, then signals), and starts no other. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const session = this.session;
    this.session = undefined;
    await session?.close();
  }

  private async spawn(): Promise<ClientSession> {
    this.startedAt = this.clock.now();
    const { label } = this.settings;
    let session: ClientSession;
    const timeout = AbortSignal.timeout(this.settings.handshakeTimeoutMs);
    try {
      session = await this.settings.connect(this.client, timeout);
    } catch (err) {
      // A handshake answer's own bound (a part of this one) ran out: the same failure.
      const why =
        timeout.aborted || err instanceof RequestTimeoutError
          ? `did not answer its handshake within ${this.settings.handshakeTimeoutMs} ms`
          : `could not be started: ${(err as Error)?.message ?? String(err)}`;
      this.exited(`${label} ${why}`);
      throw new Error(`${label} ${why}`, { cause: err });
    }
    if (this.closed) {
      await session.close();
      throw new Error('the bridge closed while its child started');
    }
    session.onclose = (cause) => {
      if (this.session !== session) return;
      this.session = undefined;
      this.exited(cause?.message ?? `${label} closed its connection`);
    };
    this.session = session;
    // A child that stays up as long as the longest backoff is no longer in a row of exits.
    this.events.up(session);
    return session;
  }

  private exited(why: string): void {
    if (this.closed) return;
    const now = this.clock.now();
    this.exitsInRow = now - this.startedAt > this.settings.maxBackoffMs ? 1 : this.exitsInRow + 1;
    const wait = Math.min(this.settings.maxBackoffMs, this.settings.backoffMs * 2 ** (this.exitsInRow - 1));
    this.restartAt = now + wait;
    if (this.exitsInRow >= this.settings.crashLoopExits) {
      if (!this.looping) {
        this.looping = true;
        this.settings.report(
          `the server behind the bridge keeps failing (${this.exitsInRow} times in a row, each soon after it started): ` +
            `${why}; reaching it again every ${wait} ms at most`,
        );
      }
    } else {
      this.looping = false;
      this.settings.report(`the server behind the bridge is down: ${why}; reaching it again in ${wait} ms`);
    }
    this.events.down(wait);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.spawn().catch(() => {
        // Said by `exited`, which scheduled the next attempt.
      });
    }, wait);
  }
}
