import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification } from '../../jsonrpc/types.js';
import type { Era } from '../../protocol/versions.js';
import type { Clock } from '../../util/clock.js';
import { type Client, type ClientConnectOptions, DEFAULT_PROBE_TIMEOUT_MS } from '../client.js';
import type { ClientContext } from '../client-session.js';
import { LegacyEra } from '../legacy-era.js';
import { ModernEra } from '../modern-era.js';
import type { ListenRoutes } from '../modern-listen.js';
import { withEnvelope } from '../request-envelope.js';
import type { EraVerdict, EraWire, ModernStart, SessionEra } from '../session-era.js';
import { probeConnection } from './probe.js';

/** What beginning an era needs of the session that will speak it. */
export interface EraHost {
  readonly wire: EraWire;
  readonly client: Client;
  /** The session's clock: the probe's wait for a silent discover is timed on it. */
  readonly clock: Clock;
  /** The one era the transport carries, if it says so (`Connection.era`). */
  readonly carried: Era | undefined;
  /** Where a modern era's listens take their acknowledgements and notifications from. */
  readonly listenRoutes: ListenRoutes;
  /** The session's catch-all notification event, which legacy listens read. */
  onNotification(listener: (n: JsonRpcNotification) => void): () => void;
  /** What a handler gets for one input request of a modern round. */
  inputContext(key: string, method: string, signal: AbortSignal): ClientContext;
}

/** The era a session speaks, begun, and the verdict that says which it is. */
export interface EraChosen {
  readonly era: SessionEra;
  readonly verdict: EraVerdict;
}

/**
 * Finds the era (unless `options` tells it) and begins it: `server/discover` first when the client speaks the
 * modern era and neither the transport nor a prior verdict says legacy, then `initialize`. Rejects with an
 * McpError when the server and the client (or the transport) share no era.
 */
export async function chooseEra(host: EraHost, options: ClientConnectOptions): Promise<EraChosen> {
  const client = host.client;
  if (options.start !== undefined) return modern(host, options.start);
  const prior = options.prior;
  const carried = host.carried;
  if (
    carried === 'legacy'
      ? client.initializeParams === undefined
      : carried === 'modern' && client.modernVersions.length === 0
  ) {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `This transport carries only the ${carried} era, which this client (era '${client.era}') does not speak`,
    );
  }
  const preference = carried ?? prior?.era ?? client.era;
  if (preference !== 'legacy' && client.modernVersions.length > 0) {
    const versions = prior?.era === 'modern' ? [prior.protocolVersion] : client.modernVersions;
    // Silence is a sign of the legacy era only where that era may be spoken: a client of era 'modern', or one whose
    // transport carries only the modern era, waits for discover as for any request (a child slow to start is not a
    // server without the era). A prior verdict may be wrong: its silence fails the connect, which probes afresh.
    const outcome = await probeConnection(
      host.wire,
      (version) => withEnvelope(undefined, client, version),
      versions,
      {
        timeoutMs: options.timeoutMs,
        legacyAfterMs:
          client.era === 'modern' || carried === 'modern'
            ? undefined
            : (client.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS),
      },
      host.clock,
      options.signal,
    );
    if (outcome.era === 'modern') return modern(host, outcome.start);
    if (preference === 'modern') {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The server does not speak ${versions.join(' or ')}: to server/discover it answered ${outcome.answer}`,
      );
    }
  }
  if (client.initializeParams === undefined) {
    throw new McpError(ErrorCode.InvalidRequest, `This client speaks only ${client.protocolVersion}`);
  }
  const legacy = new LegacyEra(host.wire, client, (listener) => host.onNotification(listener));
  await legacy.begin(options);
  return { era: legacy, verdict: { era: 'legacy', at: Date.now() } };
}

function modern(host: EraHost, start: ModernStart): EraChosen {
  const era = new ModernEra(
    host.wire,
    host.client,
    start,
    (key, method, signal) => host.inputContext(key, method, signal),
    host.listenRoutes,
  );
  return { era, verdict: { era: 'modern', protocolVersion: era.protocolVersion, at: Date.now() } };
}
