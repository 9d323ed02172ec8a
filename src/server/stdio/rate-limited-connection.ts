import { HTTP_REJECTION_CODE } from '../../http/json-error.js';
import type { Allowance, RateLimiter } from '../../http/rate-limiter.js';
import { errorResponse } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import type { Connection, MessageInfo, Receiver } from '../../peer/connection.js';

/** The caller a stdio connection's limits count: its one client. */
const STDIO_CALLER = 'stdio';

const isRequest = (m: JsonRpcMessage): m is JsonRpcRequest => 'method' in m && 'id' in m;

/**
 * `connection` with its client's requests bounded by `limiter` (in number per window, and in flight): a request
 * past a bound is answered at once with a JSON-RPC error naming the bound (`data.retryAfterSeconds`) and never
 * reaches the server; one let through is in flight until its response is sent. Notifications and responses pass.
 */
export function rateLimited(connection: Connection, limiter: RateLimiter): Connection {
  return new RateLimitedConnection(connection, limiter);
}

class RateLimitedConnection implements Connection, Receiver {
  private receiver: Receiver | undefined;
  /** The requests let through and not answered yet, by id. */
  private readonly inFlight = new Map<RequestId, Allowance>();

  constructor(
    private readonly inner: Connection,
    private readonly limiter: RateLimiter,
  ) {}

  start(receiver: Receiver): void {
    this.receiver = receiver;
    this.inner.start(this);
  }

  send(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    if (!('method' in message) && 'id' in message && message.id !== null) {
      const allowance = this.inFlight.get(message.id);
      if (allowance !== undefined) {
        this.inFlight.delete(message.id);
        this.limiter.release(allowance);
      }
    }
    return this.inner.send(message, related);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  message(message: JsonRpcMessage, info?: MessageInfo): void {
    if (!isRequest(message) || this.admitted(message)) this.receiver!.message(message, info);
  }

  batch(messages: JsonRpcMessage[], info?: MessageInfo): void {
    const admitted = messages.filter((m) => !isRequest(m) || this.admitted(m));
    if (admitted.length > 0) this.receiver!.batch(admitted, info);
  }

  asked(id: RequestId): boolean {
    return this.receiver!.asked?.(id) ?? true;
  }

  invalidAnswer(id: RequestId, problem: string): boolean {
    return this.receiver!.invalidAnswer?.(id, problem) ?? false;
  }

  error(err: Error): void {
    this.receiver!.error(err);
  }

  restarted(cause: Error, unsent?: readonly JsonRpcMessage[]): void {
    this.receiver!.restarted(cause, unsent);
  }

  closed(cause?: Error): void {
    this.inFlight.clear();
    this.receiver!.closed(cause);
  }

  /** Counts `request`, or answers it with the refusal; a repeated id in flight is left to the server to refuse. */
  private admitted(request: JsonRpcRequest): boolean {
    if (this.inFlight.has(request.id)) return true;
    const taken = this.limiter.take(STDIO_CALLER, undefined, true);
    if ('message' in taken) {
      const refusal = errorResponse(request.id, {
        code: HTTP_REJECTION_CODE,
        message: `Rate limited: ${taken.message}`,
        data: { retryAfterSeconds: taken.retryAfterSeconds },
      });
      this.inner.send(refusal).catch(() => {});
      return false;
    }
    this.inFlight.set(request.id, taken);
    return true;
  }
}
