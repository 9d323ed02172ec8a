import type { ClientSession } from '../client/client-session.js';
import type { Listen } from '../client/listen.js';
import { type LoggingLevel, Method } from '../protocol/types.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { Server } from '../server/server.js';
import { ListKind } from '../server/server-events.js';
import type { InFlight } from './child-pool.js';

/** Who hears what a child tells: every client of the server, or the one 2025 session an isolated child serves. */
export interface Audience {
  listsChanged(kinds: number): void;
  resourceUpdated(uri: string): void;
  /** A log message of the child behind `from`. */
  log(level: LoggingLevel, data: unknown, logger: string | undefined, from: ClientSession): void;
}

const noop = () => {};

/**
 * Every client: the server's events (2025 sessions and 2026 listen streams). A log message goes with the client
 * requests in flight in that child, each at its client's level: the one it was made for when it is alone there;
 * with several, each of them, since a stdio server's message says nothing of its request (a 2025 one names none,
 * a 2026 one relates only progress, by token). Made while none is, it is the server's own: to every 2025 session.
 */
export function everyClient(server: Server, inFlight: InFlight): Audience {
  return {
    listsChanged: (kinds) => server.events.publish({ type: 'lists_changed', kinds }),
    resourceUpdated: (uri) => server.resourceUpdated(uri),
    log: (level, data, logger, from) => {
      const serving = inFlight.get(from);
      if (serving === undefined || serving.size === 0) server.log(level, data, logger);
      else for (const exchange of serving) exchange.log(level, data, logger).catch(noop);
    },
  };
}

/** One 2025 session, the only client of its isolated child (as this process holds it now: `owner.session`). */
export function oneSession(owner: { readonly session: ServerSession }): Audience {
  return {
    listsChanged: (kinds) => {
      const { session } = owner;
      if (kinds & ListKind.Tools) session.notifySafely(Method.ToolListChanged);
      if (kinds & ListKind.Resources) session.notifySafely(Method.ResourceListChanged);
      if (kinds & ListKind.Prompts) session.notifySafely(Method.PromptListChanged);
    },
    resourceUpdated: (uri) => {
      const { session } = owner;
      if (session.subscriptions?.has(uri)) session.notifySafely(Method.ResourceUpdated, { uri });
    },
    log: (level, data, logger) => {
      owner.session.log(level, data, logger);
    },
  };
}

/**
 * Takes what the child behind `session` tells (list changes, resource updates, log messages) to `audience`; asks
 * the child for every log level (each client's own level filters), and for the changes: a 2026 child on a listen
 * stream, a 2025 child by subscribing again to `subscribed` (a restarted child forgot them).
 */
export function relayEvents(
  session: ClientSession,
  audience: Audience,
  subscribed: ReadonlySet<string>,
  report: (message: string) => void,
): void {
  session.on('toolsChanged', () => audience.listsChanged(ListKind.Tools));
  session.on('resourcesChanged', () => audience.listsChanged(ListKind.Resources));
  session.on('promptsChanged', () => audience.listsChanged(ListKind.Prompts));
  session.on('resourceUpdated', (params) => audience.resourceUpdated(params.uri));
  session.on('log', (params) => audience.log(params.level, params.data, params.logger, session));
  if (session.serverCapabilities.logging !== undefined) {
    session.setLoggingLevel('debug').catch(failed('logging/setLevel', report));
  }
  if (session.era === 'modern') listenIn(session, subscribed, report);
  else subscribeIn(session, [...subscribed], subscribed, report);
}

const failed = (what: string, report: (message: string) => void) => (err: unknown) =>
  report(`${what} in the child server failed: ${(err as Error)?.message ?? String(err)}`);

/** The listen stream open to each 2026 child: what it names is what the child tells of. */
const listens = new WeakMap<ClientSession, Promise<Listen | undefined>>();

/**
 * Asks the child to tell of updates of `uris` too (`subscribed`: every URI it is asked of, these among them or not):
 * `resources/subscribe` in a 2025 child; a 2026 child's listen names its URIs when it opens, so a new one naming
 * them all is opened, then the old one closed.
 */
export function subscribeIn(
  session: ClientSession,
  uris: readonly string[],
  subscribed: ReadonlySet<string>,
  report: (message: string) => void,
): void {
  if (session.era === 'modern') {
    listenIn(session, new Set([...subscribed, ...uris]), report);
    return;
  }
  for (const uri of uris) {
    session.subscribeResource(uri).catch(failed(`resources/subscribe ${uri}`, report));
  }
}

/** Opens the child's listen stream for its lists and `uris`, in place of the one open before. */
function listenIn(
  session: ClientSession,
  uris: ReadonlySet<string>,
  report: (message: string) => void,
): void {
  const caps = session.serverCapabilities;
  const before = listens.get(session);
  const opened = session
    .listen({
      toolsListChanged: caps.tools !== undefined,
      resourcesListChanged: caps.resources !== undefined,
      promptsListChanged: caps.prompts !== undefined,
      resourceSubscriptions: uris.size > 0 ? [...uris] : undefined,
    })
    .then(
      async (listen) => {
        await before?.then((old) => old?.close());
        return listen;
      },
      // The listen open before stays the child's: it still tells of what it named.
      (err) => {
        failed('subscriptions/listen', report)(err);
        return before;
      },
    );
  listens.set(session, opened);
}
