import { classify, type Parsed, parseMessage } from '../jsonrpc/parse.js';
import type { RequestId } from '../jsonrpc/types.js';
import { textBound } from '../util/text-bound.js';
import type { Cors } from './cors.js';
import type { EndpointAuth } from './endpoint-auth.js';
import { BodyTooLargeError, type HTTPExchange } from './exchange.js';
import { checkContentType, checkHostAndOrigin, type HostOriginPolicy } from './guards.js';
import type { JsonErrorOptions } from './json-error.js';
import type { RateLimiter } from './rate-limiter.js';

/** How a transport refuses a request: a status, a JSON-RPC error body saying `message`, and its `onerror`. */
export type Refuse = (
  exchange: HTTPExchange,
  status: number,
  message: string,
  options?: JsonErrorOptions,
) => void;

/** A body that parsed: one JSON-RPC message or a batch. */
export type ParsedBody = Exclude<Parsed, { kind: 'invalid' }>;

/** Hears a POST whose body is an invalid answer to request `id` (`Parsed.invalidAnswer`), before it is refused. */
export type InvalidAnswer = (exchange: HTTPExchange, id: RequestId, problem: string) => void;

/**
 * The part of serving a request that every HTTP transport of MCP shares, in one order: the DNS-rebinding guards
 * (Host 421, Origin 403: an origin allowed by CORS passes), then CORS (a preflight answered 204, or 403 for an
 * origin not allowed; any other answer marked readable by the page of an allowed origin), then authorization
 * (401, 403, 503), then the caller's rate limits (429), and for a request that carries a message, its
 * media type (415), its body within `maxBodyBytes` (413), parsed once (-32700, -32600 with the id when it could
 * be read: 400). Every refusal goes through the transport's `refuse`, so it reaches the client and `onerror`
 * the same way whichever transport refused.
 */
export class HTTPIntake {
  // The Host (or target authority) and Origin of the last request the guards let in: the verdict depends on
  // nothing else, and a server's clients send the same few, so most requests are let in by one comparison.
  private passedHost: string | undefined;
  private passedAuthority: string | undefined;
  private passedOrigin: string | undefined;

  private readonly policy: HostOriginPolicy | undefined;
  /** Throws a RangeError at construction for a bound no string could hold (see `textBound`). */
  readonly maxBodyBytes: number;

  constructor(
    policy: HostOriginPolicy | undefined,
    private readonly cors: Cors | undefined,
    private readonly auth: EndpointAuth | undefined,
    maxBodyBytes: number,
    private readonly refuse: Refuse,
    private readonly limits?: RateLimiter,
  ) {
    this.maxBodyBytes = textBound('maxBodyBytes', maxBodyBytes);
    const origins = policy?.allowedOrigins;
    this.policy =
      cors === undefined || origins === undefined
        ? policy
        : { ...policy, allowedOrigins: [...origins, ...cors.origins] };
  }

  /** True (at once, or once the token is checked) when the request may be served; false once it was refused. */
  admit(exchange: HTTPExchange): boolean | Promise<boolean> {
    const policy = this.policy;
    if (policy !== undefined) {
      const host = exchange.header('host');
      const authority = exchange.authority;
      const origin = exchange.header('origin');
      if (
        host === undefined ||
        host !== this.passedHost ||
        authority !== this.passedAuthority ||
        origin !== this.passedOrigin
      ) {
        const refused = checkHostAndOrigin(exchange, policy);
        if (refused !== undefined) {
          this.refuse(exchange, refused.status, refused.message);
          return false;
        }
        this.passedHost = host;
        this.passedAuthority = authority;
        this.passedOrigin = origin;
      }
    }
    const cors = this.cors;
    if (cors !== undefined) {
      if (cors.isPreflight(exchange)) {
        cors.preflight(exchange, (status, message) => this.refuse(exchange, status, message));
        return false;
      }
      cors.decorate(exchange);
    }
    const authorized = this.auth === undefined ? true : this.auth.admit(exchange, this.refuse);
    const limits = this.limits;
    if (limits === undefined) return authorized;
    // Counted once whom it is from is known.
    if (typeof authorized === 'boolean') return authorized && limits.admit(exchange, this.refuse);
    return authorized.then((ok) => ok && limits.admit(exchange, this.refuse));
  }

  /**
   * Answers 403 with an `insufficient_scope` challenge a request that needs `required` beyond its token's
   * scopes, with `refusal` (its JSON-RPC error) as the body; false, answering nothing, when the endpoint does
   * not authorize requests (the refusal is then the request's JSON-RPC error).
   */
  refuseScope(
    exchange: HTTPExchange,
    required: readonly string[],
    refusal: { readonly message: string; readonly code: number; readonly data?: unknown },
    id: RequestId | null,
  ): boolean {
    if (this.auth === undefined) return false;
    this.refuse(exchange, 403, `Forbidden: ${refusal.message}`, {
      code: refusal.code,
      id,
      data: refusal.data,
      headers: { 'www-authenticate': this.auth.scopeChallenge(exchange.scopes, required) },
    });
    return true;
  }

  /**
   * Reads and parses the request's message once and calls `serve` with it, unless the request was refused (answered
   * here); possibly before `read` returns. What a refusal or `serve` throws, or `serve`'s promise rejects with, goes
   * to `failed`. A body a framework parsed already (`exchange.parsedBody`) is checked as one parsed here, and refused
   * (413) when its declared Content-Length exceeds the limit: its bytes are gone, so the framework's own limit is
   * what bounds it. Callbacks rather than a promise: each promise would cost every POST a turn. A body that is an
   * invalid answer to request `id` (`Parsed.invalidAnswer`) is refused (400) after `invalidAnswer` hears it, so
   * that the request it names fails rather than wait for another answer.
   */
  read(
    exchange: HTTPExchange,
    serve: (parsed: ParsedBody) => void | Promise<void>,
    failed: (err: unknown) => void,
    invalidAnswer?: InvalidAnswer,
  ): void {
    let given: Parsed;
    try {
      const wrongType = checkContentType(exchange.header('content-type'));
      if (wrongType !== undefined) {
        this.refuse(exchange, wrongType.status, wrongType.message);
        return;
      }
      const value = exchange.parsedBody;
      if (value === undefined) {
        exchange.readBody(
          this.maxBodyBytes,
          (text) => this.serveParsed(exchange, parseMessage(text), serve, failed, invalidAnswer),
          (err) => this.refuseUnread(exchange, err, failed),
        );
        return;
      }
      if (Number(exchange.header('content-length')) > this.maxBodyBytes) {
        const tooLarge = new BodyTooLargeError(this.maxBodyBytes);
        this.refuse(exchange, tooLarge.status, tooLarge.message);
        return;
      }
      given = classify(value);
    } catch (err) {
      failed(err);
      return;
    }
    this.serveParsed(exchange, given, serve, failed, invalidAnswer);
  }

  private serveParsed(
    exchange: HTTPExchange,
    parsed: Parsed,
    serve: (parsed: ParsedBody) => void | Promise<void>,
    failed: (err: unknown) => void,
    invalidAnswer: InvalidAnswer | undefined,
  ): void {
    try {
      if (parsed.kind === 'invalid') {
        if (parsed.invalidAnswer !== undefined && parsed.id !== null)
          invalidAnswer?.(exchange, parsed.id, parsed.invalidAnswer);
        this.refuse(exchange, 400, parsed.error.message, { code: parsed.error.code, id: parsed.id });
        return;
      }
      const served = serve(parsed);
      if (served instanceof Promise) served.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  private refuseUnread(exchange: HTTPExchange, err: unknown, failed: (err: unknown) => void): void {
    try {
      if (err instanceof BodyTooLargeError) this.refuse(exchange, err.status, err.message);
      else {
        const reason = (err as Error)?.message ?? String(err);
        this.refuse(exchange, 400, `Bad Request: the request body could not be read: ${reason}`);
      }
    } catch (thrown) {
      failed(thrown);
    }
  }
}
