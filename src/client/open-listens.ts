import { ConnectionClosedError } from '../peer/errors.js';
import type { Listen, ListenEnd } from './listen.js';

/**
 * The listens a session has open, ended with the session: `closed` when this client closed it, `failed`
 * (ConnectionClosedError) when the connection closed under it. A legacy listen has no request in flight that
 * the close would fail, so without this it would never end, and its reader would wait forever.
 */
export class OpenListens {
  private readonly open = new Set<Listen>();
  private end: ListenEnd | undefined;

  /** Holds `listen` until it ends; one that opens after the session closed is ended at once. */
  hold(listen: Listen): Listen {
    if (this.end !== undefined) {
      listen.endWith(this.end).catch(() => {});
      return listen;
    }
    this.open.add(listen);
    listen.ended.then(() => this.open.delete(listen));
    return listen;
  }

  /** Ends every open listen; `here` says whether this client closed the session. */
  endAll(here: boolean, cause: Error | undefined): void {
    this.end = here
      ? { reason: 'closed' }
      : { reason: 'failed', error: new ConnectionClosedError('Connection closed', cause) };
    // Undoing a listen on a closed connection fails; the session is gone, so nothing is left to undo.
    for (const listen of this.open) listen.endWith(this.end).catch(() => {});
    this.open.clear();
  }
}
