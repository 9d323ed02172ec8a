import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import { MetaKey } from '../protocol/envelope.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import { TaskMethod } from '../protocol/tasks.js';
import { Method } from '../protocol/types.js';
import type { TaskRecord } from '../tasks/task-store.js';
import { ANONYMOUS, type Caller } from './access.js';
import type { Server } from './server.js';
import { kindsHeardBy, ListKind, type ServerEvent } from './server-events.js';
import { detailedTask } from './tasks/task-wire.js';

/** Where a subscription's messages go: an SSE stream of one POST, or the stdio channel. */
export interface SubscriptionSink {
  /** Sends one message of the stream; false when it could not (the stream is gone). */
  send(message: JsonRpcMessage): boolean;
  /** Ends the stream after what was sent. */
  end(): void;
}

/**
 * One `subscriptions/listen` (spec 2026-07-28, subscriptions): the acknowledgement first, with the honoured
 * filter; then only the notifications that filter names, each tagged with the listen request's id, never
 * progress or logs; and a result when the server ends it (`end`). An empty honoured filter is acknowledged
 * and ended at once. `cancel` stops it without a result (the client went away).
 */
export class Subscription {
  private unsubscribe: (() => void) | undefined;
  private readonly meta: Record<string, RequestId>;
  private readonly uris: ReadonlySet<string> | undefined;
  private readonly kinds: number;
  private readonly taskIds: ReadonlySet<string> | undefined;
  private unwatchTasks: (() => void) | undefined;

  constructor(
    private readonly server: Server,
    readonly id: RequestId,
    private readonly filter: SubscriptionFilter,
    private readonly sink: SubscriptionSink,
    /** Whoever opened it: it hears only of that principal's tasks, and of changes to the entries it may see. */
    private readonly caller: Caller = ANONYMOUS,
  ) {
    this.meta = { [MetaKey.SubscriptionId]: id };
    this.uris =
      filter.resourceSubscriptions === undefined ? undefined : new Set(filter.resourceSubscriptions);
    this.kinds =
      (filter.toolsListChanged ? ListKind.Tools : 0) |
      (filter.promptsListChanged ? ListKind.Prompts : 0) |
      (filter.resourcesListChanged ? ListKind.Resources : 0);
    this.taskIds = filter.taskIds === undefined ? undefined : new Set(filter.taskIds);
  }

  /** True while it is delivering. */
  get open(): boolean {
    return this.unsubscribe !== undefined;
  }

  /** Sends the acknowledgement and starts delivering (or ends at once, when nothing was honoured). */
  start(): void {
    this.sink.send({
      jsonrpc: '2.0',
      method: Method.SubscriptionsAcknowledged,
      params: { notifications: this.filter, _meta: this.meta },
    });
    if (this.kinds === 0 && this.uris === undefined && this.taskIds === undefined) {
      this.finish();
      return;
    }
    this.unsubscribe = this.server.events.subscribe(this.deliver);
    if (this.uris !== undefined) this.server.events.watched?.([...this.uris]);
    const store = this.server.tasks?.store;
    if (this.taskIds !== undefined && store !== undefined)
      this.unwatchTasks = store.onChange(this.deliverTask);
  }

  /** Ends it gracefully: the listen request's result, then the end of the stream. */
  end(): void {
    if (!this.open) return;
    this.stop();
    this.finish();
  }

  /** Stops delivering without a word: the stream is already gone. */
  cancel(): void {
    this.stop();
  }

  private finish(): void {
    this.sink.send({ jsonrpc: '2.0', id: this.id, result: { resultType: 'complete', _meta: this.meta } });
    this.sink.end();
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unwatchTasks?.();
    this.unwatchTasks = undefined;
  }

  /** SEP-2663: each change of a task it asked for, as `tasks/get` would answer it then; another's task is never named. */
  private readonly deliverTask = (task: TaskRecord): void => {
    if (!this.taskIds!.has(task.taskId) || task.principal !== this.caller.principal) return;
    this.send(TaskMethod.Notification, { ...detailedTask(task), _meta: this.meta });
  };

  private readonly deliver = (event: ServerEvent): void => {
    if (event.type === 'resource_updated') {
      if (this.uris?.has(event.uri)) {
        this.send(Method.ResourceUpdated, { uri: event.uri, _meta: this.meta });
      }
      return;
    }
    const kinds = kindsHeardBy(event, this.caller) & this.kinds;
    if (kinds & ListKind.Tools) this.send(Method.ToolListChanged, { _meta: this.meta });
    if (kinds & ListKind.Prompts) this.send(Method.PromptListChanged, { _meta: this.meta });
    if (kinds & ListKind.Resources) this.send(Method.ResourceListChanged, { _meta: this.meta });
  };

  private send(method: string, params: Record<string, unknown>): void {
    if (!this.sink.send({ jsonrpc: '2.0', method, params })) this.stop();
  }
}
