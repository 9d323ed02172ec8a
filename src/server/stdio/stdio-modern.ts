import { ErrorCode, errorResponse, idInUse, McpError, toErrorObject } from '../../jsonrpc/errors.js';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  Params,
  RequestId,
} from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { RequestCancelledError } from '../../peer/errors.js';
import { claimsModern } from '../../protocol/envelope.js';
import type { SubscriptionFilter } from '../../protocol/modern-types.js';
import { honouredFilter } from '../../protocol/subscription-filter.js';
import { Method, type Result } from '../../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { CANCELLED } from '../../telemetry/attributes.js';
import type { RequestObservation } from '../../telemetry/telemetry.js';
import type { ModernScope } from '../client-scope.js';
import { admitModern } from '../modern/admission.js';
import type { ModernOutlet } from '../modern/context.js';
import { ModernCall } from '../modern/modern-call.js';
import type { Server } from '../server.js';
import { Subscription } from '../subscription.js';

interface InFlight {
  readonly call: ModernCall;
  readonly method: string;
  readonly observed: RequestObservation | undefined;
}

interface Listening {
  readonly subscription: Subscription;
  readonly observed: RequestObservation | undefined;
}

const COMPLETE = Object.freeze({ resultType: 'complete' });

const ERA_MISMATCH =
  `Invalid request: this connection speaks ${MODERN_PROTOCOL_VERSIONS.join(', ')} (its first message ` +
  'claimed a protocol version in _meta), so every request must carry the _meta envelope; ' +
  'initialize starts a 2025 session on a new connection';

/**
 * The 2026-07-28 era over one stdio connection (spec 2026-07-28, stdio): each request is admitted
 * (`admitModern`, no headers) and answered on its own, several at once, its notifications (progress, logs)
 * written before its result; `subscriptions/listen` streams share the channel, told apart by their
 * subscription id; `notifications/cancelled` aborts the named request, or ends the named listen stream,
 * and nothing more is written for it. Never writes a request. When the connection ends, listen streams
 * stop and requests in flight are aborted.
 */
export class ModernStdio implements Receiver, ModernOutlet {
  readonly transport = undefined;
  private readonly calls = new Map<RequestId, InFlight>();
  private readonly listens = new Map<RequestId, Listening>();
  private ended = false;

  constructor(
    private readonly server: Server,
    private readonly connection: Connection,
    private readonly report: (err: Error) => void,
  ) {}

  message(message: JsonRpcMessage): void {
    if (!('method' in message)) {
      this.report(new Error('Ignored a response: a 2026-07-28 server sends no requests to answer'));
      return;
    }
    if (!('id' in message)) {
      this.notification(message);
      return;
    }
    if (!claimsModern(message)) {
      this.send(errorResponse(message.id, { code: ErrorCode.InvalidRequest, message: ERA_MISMATCH }));
      return;
    }
    this.request(message);
  }

  batch(): void {
    this.send(
      errorResponse(null, {
        code: ErrorCode.InvalidRequest,
        message: 'Invalid request: a 2026-07-28 message is sent alone, not in a batch',
      }),
    );
  }

  error(err: Error): void {
    this.report(err);
  }

  restarted(): void {
    // stdio never restarts.
  }

  closed(): void {
    if (this.ended) return;
    this.ended = true;
    for (const { subscription, observed } of this.listens.values()) {
      observed?.end(undefined, CANCELLED);
      subscription.cancel();
    }
    this.listens.clear();
    for (const [id, { call, method, observed }] of this.calls) {
      this.calls.delete(id);
      observed?.end(undefined, CANCELLED);
      call.abort(new RequestCancelledError(method, 'the connection ended'));
    }
  }

  /**
   * Ends the connection from the server's side: each listen stream ends with its result, requests in
   * flight are cancelled, and the connection closes once what was written has gone out.
   */
  end(): Promise<void> {
    for (const { subscription } of this.listens.values()) subscription.end();
    return this.connection.close();
  }

  notify(message: JsonRpcNotification): void {
    this.send(message);
  }

  private notification(message: JsonRpcNotification): void {
    // Cancellation is acted on whatever its envelope says: it only ever stops work.
    if (message.method === Method.Cancelled) {
      this.cancel((message.params as Params | undefined)?.requestId as RequestId | undefined);
      return;
    }
    if (!claimsModern(message)) {
      this.report(new Error(`Ignored ${message.method}: ${ERA_MISMATCH}`));
      return;
    }
    const admitted = admitModern(this.server, message, undefined);
    if ('error' in admitted) this.report(admitted.error);
  }

  private cancel(id: RequestId | undefined): void {
    if (id === undefined) return;
    const listening = this.listens.get(id);
    if (listening !== undefined) {
      this.listens.delete(id);
      listening.observed?.end(undefined, CANCELLED);
      listening.subscription.cancel();
      return;
    }
    const running = this.calls.get(id);
    if (running === undefined) return;
    this.calls.delete(id);
    running.observed?.end(undefined, CANCELLED);
    running.call.abort(new RequestCancelledError(running.method, 'the client cancelled it'));
  }

  private request(request: JsonRpcRequest): void {
    const id = request.id;
    const observed = this.server.telemetry?.serving(request.method, id, request.params, undefined);
    if (this.calls.has(id) || this.listens.has(id)) {
      this.fail(id, idInUse(id), observed);
      return;
    }
    const admitted = admitModern(this.server, request, undefined);
    if ('error' in admitted) {
      this.fail(id, admitted.error, observed);
      return;
    }
    this.begin(request, admitted.scope, observed);
  }

  /**
   * The connection's first request, admitted already: serveStdio admits a first message that claims 2026-07-28
   * before choosing the era (a refused one leaves the era open), so it is not admitted twice.
   */
  first(request: JsonRpcRequest, scope: ModernScope): void {
    this.begin(
      request,
      scope,
      this.server.telemetry?.serving(request.method, request.id, request.params, undefined),
    );
  }

  private begin(request: JsonRpcRequest, scope: ModernScope, observed: RequestObservation | undefined): void {
    if (request.method === Method.SubscriptionsListen) this.listen(request, observed);
    else if (observed === undefined) this.run(request, scope, undefined);
    // The handler in the request's span: what it starts is its child.
    else observed.run(() => this.run(request, scope, observed));
  }

  private listen(request: JsonRpcRequest, observed: RequestObservation | undefined): void {
    const { server, listens } = this;
    const id = request.id;
    const filter = (request.params as { notifications: SubscriptionFilter }).notifications;
    const subscription: Subscription = new Subscription(
      server,
      id,
      honouredFilter(filter, server.capabilities),
      {
        send: (message) => {
          if (this.ended) return false;
          this.send(message);
          return true;
        },
        // The channel outlives the stream: only forget it.
        end: () => {
          observed?.end(COMPLETE);
          if (listens.get(id)?.subscription === subscription) listens.delete(id);
        },
      },
    );
    listens.set(id, { subscription, observed });
    subscription.start();
  }

  private run(request: JsonRpcRequest, scope: ModernScope, observed: RequestObservation | undefined): void {
    const id = request.id;
    const call = new ModernCall(this.server, request, scope, this, undefined);
    let outcome: Result | Promise<Result>;
    try {
      outcome = call.run();
    } catch (err) {
      this.fail(id, err, observed);
      return;
    }
    if (!(outcome instanceof Promise)) {
      this.answer(id, outcome, observed);
      return;
    }
    const running: InFlight = { call, method: request.method, observed };
    this.calls.set(id, running);
    // Only the request still in flight is answered: a cancelled one (or one of an ended connection) is not.
    const owed = (): boolean => {
      if (this.calls.get(id) !== running) return false;
      this.calls.delete(id);
      return true;
    };
    outcome.then(
      (result) => {
        if (owed()) this.answer(id, result, observed);
      },
      (err) => {
        if (owed()) this.fail(id, err, observed);
      },
    );
  }

  private answer(id: RequestId, result: Result, observed: RequestObservation | undefined): void {
    observed?.end(result);
    this.send({ jsonrpc: '2.0', id, result });
  }

  private fail(id: RequestId, err: unknown, observed: RequestObservation | undefined): void {
    observed?.end(undefined, err);
    if (!(err instanceof McpError)) this.report(err instanceof Error ? err : new Error(String(err)));
    this.send(errorResponse(id, toErrorObject(err)));
  }

  private send(message: JsonRpcMessage): void {
    // A failed write ends the connection, which `closed` hears; nothing more to do per message.
    this.connection.send(message).catch(() => {});
  }
}
