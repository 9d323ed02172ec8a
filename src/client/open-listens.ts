import { ConnectionClosedError } from '../peer/errors.js';
import type { Listen, ListenEnd } from './listen.js';

/**
 * The listens a session has open, ended with the session: `closed` when this client closes it, `failed`
 * (ConnectionClosedError) when the connection closed under it. A legacy listen has no request in flight that
 * the close would fail, so without this it would never end, and its reader would wait forever.
 */
export class OpenListens {
  private readonly open = new Set<Listen>();
  /** How the session ends, once that is known: listens held from then on end so at once. */
  private end: ListenEnd | undefined;

  /** Holds `listen` until it ends. */
  hold(listen: Listen): Listen {
    if (this.end !== undefined) {
      listen.endWith(this.end).catch(() => {});
      return listen;
    }
    this.open.add(listen);
    listen.ended.then(() => this.open.delete(listen));
    return listen;
  }

  /** This client is closing the session: its listens end as closed, not failed, once the connection has closed. */
  closing(): void {
    this.end ??= { reason: 'closed' };
  }

  /** The connection closed: every open listen ends, as closed after `closing`, else as failed. */
  lost(cause: Error | undefined): void {
    this.end ??= { reason: 'failed', error: new ConnectionClosedError('Connection closed', cause) };
    // Undoing a listen fails once the connection is closed; nothing is then left to undo.
    for (const listen of this.open) listen.endWith(this.end).catch(() => {});
    this.open.clear();
  }
}
