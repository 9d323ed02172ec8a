import type { Server } from '../server/server.js';
import type { ServerEvent } from '../server/server-events.js';
import type { EventMessage } from './cluster-messages.js';

/**
 * Carries a Server's events (list changes, resource updates) to the other processes of a cluster: each event
 * published here crosses the bus once (one PUBLISH, whatever the number of streams), and each other process
 * publishes it to its own `Server.events`, marked `remote`, so that its listen streams hear it there once. An
 * event heard from the bus is never sent back; this process's own message coming back is ignored.
 */
export class ClusterEvents {
  private readonly unsubscribe: () => void;

  constructor(
    private readonly server: Server,
    private readonly nodeId: string,
    private readonly publish: (m: EventMessage) => void,
  ) {
    this.unsubscribe = server.events.subscribe(this.outgoing);
  }

  /** An event another process published. */
  receive(m: EventMessage): void {
    if (m.by === this.nodeId) return;
    this.server.events.publish({ ...m.e, remote: true });
  }

  close(): void {
    this.unsubscribe();
  }

  private readonly outgoing = (event: ServerEvent): void => {
    if (event.remote) return;
    this.publish({ k: 'event', by: this.nodeId, e: event });
  };
}
