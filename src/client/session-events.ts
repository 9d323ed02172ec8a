import type { JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import { MetaKey } from '../protocol/envelope.js';
import {
  type ElicitationCompleteNotificationParams,
  type LoggingMessageNotificationParams,
  Method,
  type ProgressNotificationParams,
  type ResourceUpdatedNotificationParams,
} from '../protocol/types.js';
import type { Events } from './events.js';
import type { ListenRoutes } from './modern-listen.js';

/** The events of a ClientSession and their listeners' arguments: what the server notified. */
export interface ClientSessionEvents {
  /** `notifications/tools/list_changed` (the cached output schemas are already forgotten). */
  toolsChanged: [];
  /** `notifications/resources/list_changed`. */
  resourcesChanged: [];
  /** `notifications/prompts/list_changed`. */
  promptsChanged: [];
  /** `notifications/resources/updated`, for a subscribed resource. */
  resourceUpdated: [params: ResourceUpdatedNotificationParams];
  /** `notifications/message`: a log message at or above the level set with setLoggingLevel. */
  log: [params: LoggingMessageNotificationParams];
  /** Progress no pending request of this session claims (`onprogress` receives the others). */
  progress: [params: ProgressNotificationParams];
  /** `notifications/elicitation/complete`: an out-of-band (URL mode) elicitation finished. */
  elicitationComplete: [params: ElicitationCompleteNotificationParams];
  /** Every notification that reaches the session, after its own event; the catch-all for unknown methods. */
  notification: [notification: JsonRpcNotification];
}

/**
 * Where the server's notifications go: first to the modern listen whose `subscriptionId` they carry (its
 * acknowledgement resolves that listen and goes no further), then to the session's event for the method, and
 * last to `notification`, the catch-all.
 */
export class SessionNotifications {
  /** The open modern listen requests, by id: where their acknowledgements and notifications go. */
  readonly listenRoutes: ListenRoutes = new Map();

  constructor(
    private readonly events: Events<ClientSessionEvents>,
    /** Runs before `toolsChanged` fires: what was learnt of the tools is stale. */
    private readonly toolsChanged: () => void,
  ) {}

  route(notification: JsonRpcNotification): void {
    const params = notification.params;
    const subscription = (params?._meta as Record<string, unknown> | undefined)?.[MetaKey.SubscriptionId];
    if (subscription !== undefined) {
      const route = this.listenRoutes.get(subscription as RequestId);
      if (notification.method === Method.SubscriptionsAcknowledged) {
        // An acknowledgement that names no filter honours nothing (a null one is a wrong one).
        const notifications = params?.notifications;
        route?.acknowledged(notifications === undefined ? {} : notifications);
        return;
      }
      route?.notification(notification);
    }
    switch (notification.method) {
      case Method.ToolListChanged:
        this.toolsChanged();
        this.events.emit('toolsChanged');
        break;
      case Method.ResourceListChanged:
        this.events.emit('resourcesChanged');
        break;
      case Method.PromptListChanged:
        this.events.emit('promptsChanged');
        break;
      case Method.ResourceUpdated:
        this.events.emit('resourceUpdated', params as unknown as ResourceUpdatedNotificationParams);
        break;
      case Method.LoggingMessage:
        this.events.emit('log', params as unknown as LoggingMessageNotificationParams);
        break;
      case Method.Progress:
        this.events.emit('progress', params as unknown as ProgressNotificationParams);
        break;
      case Method.ElicitationComplete:
        this.events.emit('elicitationComplete', params as unknown as ElicitationCompleteNotificationParams);
        break;
    }
    this.events.emit('notification', notification);
  }

  /** A modern server ends a listen on stdio with `notifications/cancelled` naming it. */
  cancelled(id: RequestId): void {
    this.listenRoutes.get(id)?.cancelled();
  }
}
