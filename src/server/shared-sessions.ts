import type { ServerSession } from './legacy/server-session.js';

/** Sessions of a server that several processes serve (see `Server.shared`). */
export interface SharedSessions {
  /** Notifies each shared session subscribed to `uri` once, in whichever process serves it; never throws. */
  resourceUpdated(uri: string): void;
  /** True when `session` is one of them: `resourceUpdated` leaves it to this. */
  has(session: ServerSession): boolean;
  /** Whether this process tells shared `session` of list changes (its own and other processes'). */
  tellsListChanges(session: ServerSession): boolean;
}
