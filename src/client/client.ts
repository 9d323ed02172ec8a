import type { Params } from '../jsonrpc/types.js';
import type { Connection } from '../peer/connection.js';
import type { PeerOptions } from '../peer/peer-options.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Implementation,
  InitializeRequestParams,
  JsonObject,
  Root,
} from '../protocol/types.js';
import {
  eraOf,
  isLegacyVersion,
  isModernVersion,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from '../protocol/versions.js';
import { resolveTelemetry, type TelemetryOptions } from '../telemetry/resolve.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { type ClientContext, ClientSession } from './client-session.js';
import type { RetryPolicy } from './retry-policy.js';
import { checkRoots } from './roots.js';
import type { EraVerdict, ModernStart } from './session-era.js';
import type { ClientTaskOptions } from './task-types.js';

/** Answers a server's `sampling/createMessage`: runs the model (ideally with a human in the loop). */
export type SamplingHandler = (
  params: CreateMessageRequestParams,
  ctx: ClientContext,
) => CreateMessageResult | Promise<CreateMessageResult>;

/** Answers a form-mode `elicitation/create`: asks the user to fill in `requestedSchema`. */
export type FormElicitationHandler = (
  params: ElicitRequestFormParams,
  ctx: ClientContext,
) => ElicitResult | Promise<ElicitResult>;

/** Answers `roots/list`: the roots now, for the server whose session `ctx` names. */
export type RootsHandler = (ctx: ClientContext) => readonly Root[] | Promise<readonly Root[]>;

/** Answers a URL-mode `elicitation/create`: asks the user's consent to open `url`, out of band. */
export type UrlElicitationHandler = (
  params: ElicitRequestURLParams,
  ctx: ClientContext,
) => ElicitResult | Promise<ElicitResult>;

export interface ClientOptions extends PeerOptions, TelemetryOptions {
  /**
   * This client's roots; giving it declares `roots: { listChanged: true }`. A list: every session's first roots
   * (`setRoots` changes a session's). A function: asked each time a server reads them (a host passing on the roots
   * of a client of its own); `rootsChanged` tells the server they changed.
   */
  roots?: Root[] | RootsHandler;
  /** Giving it declares the `sampling` capability. */
  sampling?: SamplingHandler;
  /** With `sampling`, also declares `sampling.tools`: requests may carry `tools` and `toolChoice`. */
  samplingTools?: boolean;
  /**
   * Protocol extensions this client supports, by identifier, with their settings (SEP-1724), declared in both
   * eras: e.g. `{ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } }` for a host that
   * renders MCP Apps. (The Tasks extension is declared by `tasks`.)
   */
  extensions?: Record<string, JsonObject>;
  /** Declares `elicitation.form` and/or `elicitation.url`, for the handlers given. */
  elicitation?: { form?: FormElicitationHandler; url?: UrlElicitationHandler };
  /**
   * On an accepted form, fill the properties the user left out with the requested schema's
   * defaults before answering (SEP-1034). Default true.
   */
  applyElicitationDefaults?: boolean;
  /**
   * Which protocol era to speak: `'auto'` (default) probes with `server/discover` and falls back to
   * `initialize` when the server is not a modern one; `'modern'` speaks only 2026-07-28 and later;
   * `'legacy'` only the initialize handshake (2025-11-25 and before).
   */
  era?: EraPreference;
  /**
   * Pins one protocol version: a modern one (`'2026-07-28'`) speaks only it, a legacy one only it at
   * initialize. Default: the newest of each era this library speaks.
   */
  protocolVersion?: string;
  /**
   * Tasks: declares the Tasks extension (`io.modelcontextprotocol/tasks`, in each modern request's
   * capabilities) and 2025-11-25's `tasks` capability (at initialize, with the `task` param on calls of tools
   * that allow it). callTool then follows a task the server answers with to its end (polling, input through
   * the handlers, `tasks/cancel` on abort), and `session.tasks` works. An object sets the polling limits.
   * Default off: the spec keeps extensions off until the developer opts in, and a task changes what a call's
   * abort and timeout mean (see `TaskRequestOptions`).
   */
  tasks?: boolean | ClientTaskOptions;
  /** Rounds of `input_required` one modern request may take before it fails. Default 10. */
  maxInputRounds?: number;
  /** How a dropped listen stream is opened again. Default `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /**
   * How long the probe over stdio (or another connection without HTTP statuses) waits for `server/discover`
   * once the server has shown it is up (it answered the `ping` sent behind the discover) before taking it for
   * a legacy one. Default 5 s. Until then it waits as for any request, so a server slow to start is not taken
   * for a legacy one. Over HTTP the probe waits as long as a request may, since a sign-in may happen within
   * it; so does it with era 'modern', which takes no server for a legacy one.
   */
  probeTimeoutMs?: number;
}

/** Which era a Client speaks; see `ClientOptions.era`. */
export type EraPreference = 'auto' | 'modern' | 'legacy';

/** Limits on the handshake of one `connect`, and what is already known of the server. */
export interface ClientConnectOptions {
  /** Aborting gives up on the handshake and closes the connection. */
  signal?: AbortSignal;
  /** Time to wait for each answer of the handshake; default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /**
   * What an earlier negotiation found (`session.verdict`): the probe is skipped and that era spoken. A
   * verdict that proves wrong fails the connect; `connectUrl` then probes afresh.
   */
  prior?: EraVerdict;
  /** @internal A discover result already read (by the HTTP probe): the session is modern from it. */
  start?: ModernStart;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 5000;

/**
 * An MCP client definition: who it is, what it can do for servers (roots, sampling, elicitation)
 * and its handlers. It holds no per-connection state; each `connect` returns a new ClientSession,
 * so one Client can talk to many servers.
 */
export class Client {
  /** The capabilities every modern request declares, derived once from the options (initialize: `initializeParams`). */
  readonly capabilities: ClientCapabilities;
  /** The legacy version asked for at initialize (or the pinned modern version). */
  readonly protocolVersion: string;
  /** The era negotiation aims for. */
  readonly era: EraPreference;
  /** The modern versions this client speaks, by preference; empty when it speaks only legacy. */
  readonly modernVersions: readonly string[];
  /** The initialize params, built once and shared by every connection (never mutated); undefined when pinned modern. */
  readonly initializeParams: Params | undefined;
  /** The task limits when tasks are on (`ClientOptions.tasks`), every default filled in; undefined when off. */
  readonly tasks:
    | Readonly<Required<Omit<ClientTaskOptions, 'ttlMs'>> & Pick<ClientTaskOptions, 'ttlMs'>>
    | undefined;
  /** @internal Where every session's requests are observed; undefined when nothing listens. */
  readonly telemetry: Telemetry | undefined;

  constructor(
    readonly info: Implementation,
    readonly options: ClientOptions = {},
  ) {
    const pin = options.protocolVersion;
    if (pin !== undefined && !isLegacyVersion(pin) && !isModernVersion(pin)) {
      throw new Error(
        `Protocol version "${pin}" is not supported; choose one of ` +
          [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS].join(', '),
      );
    }
    const era = options.era ?? (pin === undefined ? 'auto' : eraOf(pin));
    if (era !== 'auto' && era !== 'modern' && era !== 'legacy') {
      throw new Error(`era must be 'auto', 'modern' or 'legacy', not ${JSON.stringify(era)}`);
    }
    if (pin !== undefined && era !== eraOf(pin)) {
      throw new Error(`Protocol version "${pin}" belongs to the ${eraOf(pin)} era, but era is '${era}'`);
    }
    if (Array.isArray(options.roots)) checkRoots(options.roots);
    this.era = era;
    this.tasks = taskLimits(options.tasks);
    const base = declaredCapabilities(options);
    // The same support, said as each era says it: an extension (2026-07-28), a capability (2025-11-25).
    this.capabilities = this.tasks
      ? { ...base, extensions: { ...(base.extensions as JsonObject | undefined), [TASKS_EXTENSION]: {} } }
      : base;
    const legacy = era === 'modern' ? undefined : (pin ?? LATEST_PROTOCOL_VERSION);
    this.protocolVersion = pin ?? LATEST_PROTOCOL_VERSION;
    this.modernVersions = era === 'legacy' ? [] : pin === undefined ? MODERN_PROTOCOL_VERSIONS : [pin];
    this.initializeParams =
      legacy === undefined
        ? undefined
        : ({
            protocolVersion: legacy,
            capabilities: this.tasks ? { ...base, tasks: {} } : base,
            clientInfo: info,
          } satisfies InitializeRequestParams);
    this.telemetry = resolveTelemetry(options);
  }

  /**
   * Negotiates the era over `connection` and resolves with the session once it is ready: with `era:
   * 'auto'`, `server/discover` first (see `probeTimeoutMs`), then `initialize` when the answer is not a
   * modern one. On any failure (timeout, abort, an error answer, a malformed result, an unsupported
   * version) the connection is closed and the promise rejects with the reason. initialize itself is never
   * cancelled on the wire: the spec forbids it.
   */
  async connect(connection: Connection, options: ClientConnectOptions = {}): Promise<ClientSession> {
    const session = new ClientSession(connection, this);
    await session.handshake(options);
    return session;
  }
}

function taskLimits(option: boolean | ClientTaskOptions | undefined): Client['tasks'] {
  if (option === undefined || option === false) return undefined;
  const given = option === true ? {} : option;
  const limits = {
    minPollIntervalMs: given.minPollIntervalMs ?? 100,
    maxPollIntervalMs: given.maxPollIntervalMs ?? 30_000,
    defaultPollIntervalMs: given.defaultPollIntervalMs ?? 1000,
    ttlMs: given.ttlMs,
  };
  const { minPollIntervalMs: min, maxPollIntervalMs: max, defaultPollIntervalMs: fallback } = limits;
  if (!(min >= 0 && min <= max && fallback >= 0)) {
    throw new Error(
      `tasks: minPollIntervalMs (${min}) must be at least 0 and at most maxPollIntervalMs (${max}), ` +
        `and defaultPollIntervalMs (${fallback}) at least 0`,
    );
  }
  return limits;
}

function declaredCapabilities(options: ClientOptions): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (options.extensions !== undefined) capabilities.extensions = { ...options.extensions };
  if (options.roots !== undefined) capabilities.roots = { listChanged: true };
  if (options.sampling !== undefined) capabilities.sampling = options.samplingTools ? { tools: {} } : {};
  const elicitation = options.elicitation;
  // Declaring elicitation with neither mode would mean "form" to servers (spec: backwards compatibility).
  if (elicitation?.form !== undefined || elicitation?.url !== undefined) {
    capabilities.elicitation = {};
    if (elicitation.form !== undefined) capabilities.elicitation.form = {};
    if (elicitation.url !== undefined) capabilities.elicitation.url = {};
  }
  return capabilities;
}
