import type { Params } from '../jsonrpc/types.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Implementation,
  InitializeRequestParams,
  Root,
} from '../protocol/types.js';
import { isLegacyVersion, LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { Connection } from '../session/connection.js';
import type { SessionOptions } from '../session/session.js';
import { type ClientContext, ClientSession } from './client-session.js';
import { checkRoots } from './roots.js';

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

/** Answers a URL-mode `elicitation/create`: asks the user's consent to open `url`, out of band. */
export type UrlElicitationHandler = (
  params: ElicitRequestURLParams,
  ctx: ClientContext,
) => ElicitResult | Promise<ElicitResult>;

export interface ClientOptions extends SessionOptions {
  /** The initial roots of every session. Giving it declares `roots: { listChanged: true }`. */
  roots?: Root[];
  /** Giving it declares the `sampling` capability. */
  sampling?: SamplingHandler;
  /** With `sampling`, also declares `sampling.tools`: requests may carry `tools` and `toolChoice`. */
  samplingTools?: boolean;
  /** Declares `elicitation.form` and/or `elicitation.url`, for the handlers given. */
  elicitation?: { form?: FormElicitationHandler; url?: UrlElicitationHandler };
  /**
   * On an accepted form, fill the properties the user left out with the requested schema's
   * defaults before answering (SEP-1034). Default true.
   */
  applyElicitationDefaults?: boolean;
  /** The protocol version to ask for at initialize. Default: the latest this library speaks. */
  protocolVersion?: string;
}

/** Limits on the initialize handshake of one `connect`. */
export interface ClientConnectOptions {
  /** Aborting gives up on the handshake and closes the connection. */
  signal?: AbortSignal;
  /** Time to wait for the initialize answer; default: the client's `requestTimeout`. */
  timeout?: number;
}

/**
 * An MCP client definition: who it is, what it can do for servers (roots, sampling, elicitation)
 * and its handlers. It holds no per-connection state; each `connect` returns a new ClientSession,
 * so one Client can talk to many servers.
 */
export class Client {
  /** The capabilities every session declares, derived once from the options. */
  readonly capabilities: ClientCapabilities;
  /** The version every session asks for. */
  readonly protocolVersion: string;
  /** The initialize params, built once and shared by every connection (never mutated). */
  readonly initializeParams: Params;

  constructor(
    readonly info: Implementation,
    readonly options: ClientOptions = {},
  ) {
    const version = options.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    if (!isLegacyVersion(version)) {
      throw new Error(
        `Protocol version "${version}" is not supported; choose one of ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    if (options.roots !== undefined) checkRoots(options.roots);
    this.protocolVersion = version;
    this.capabilities = declaredCapabilities(options);
    this.initializeParams = {
      protocolVersion: version,
      capabilities: this.capabilities,
      clientInfo: info,
    } satisfies InitializeRequestParams;
  }

  /**
   * Runs the initialize handshake over `connection` and resolves with the session once the server
   * has answered with a version this client speaks and `notifications/initialized` is sent.
   * On any failure (timeout, abort, an error answer, a malformed result, an unsupported version)
   * the connection is closed and the promise rejects with the reason. initialize itself is never
   * cancelled on the wire: the spec forbids it.
   */
  async connect(connection: Connection, options: ClientConnectOptions = {}): Promise<ClientSession> {
    const session = new ClientSession(connection, this);
    await session.handshake(options);
    return session;
  }
}

function declaredCapabilities(options: ClientOptions): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
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
