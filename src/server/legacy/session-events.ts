import type { JsonRpcNotification } from '../../jsonrpc/types.js';
import { Method } from '../../protocol/types.js';
import type { Server } from '../server.js';
import { kindsHeardBy, ListKind, type ServerEvent } from '../server-events.js';

const { Tools: TOOLS, Resources: RESOURCES, Prompts: PROMPTS } = ListKind;

// Sent to every session that was announced the list: one object each, serialized once (`serialize`).
const changed = (method: string): JsonRpcNotification => Object.freeze({ jsonrpc: '2.0', method });
const TOOLS_CHANGED = changed(Method.ToolListChanged);
const RESOURCES_CHANGED = changed(Method.ResourceListChanged);
const PROMPTS_CHANGED = changed(Method.PromptListChanged);

/**
 * The legacy sessions' listener of `server`'s events: each initialized session hears the list changes it was
 * announced (`listChanged`), and the updates of the resources it subscribed to; a session shared by several
 * processes hears each once, from the process that tells it.
 */
export function toLegacySessions(server: Server): (event: ServerEvent) => void {
  return (event) => {
    if (event.type === 'resource_updated') {
      const shared = server.shared;
      const message: JsonRpcNotification = {
        jsonrpc: '2.0',
        method: Method.ResourceUpdated,
        params: { uri: event.uri },
      };
      for (const session of server.sessions) {
        if (session.subscriptions?.has(event.uri) && (shared === undefined || !shared.has(session))) {
          session.sendShared(message);
        }
      }
      return;
    }
    const shared = server.shared;
    for (const session of server.sessions) {
      // A session learns of a list only through the capabilities it was announced.
      const announced = session.serverCapabilities;
      if (!session.initialized || announced === undefined) continue;
      // One process tells a shared session, of every process's changes.
      if (shared?.has(session) && !shared.tellsListChanges(session)) continue;
      const kinds = kindsHeardBy(event, session.caller);
      if (kinds & TOOLS && announced.tools?.listChanged) session.sendShared(TOOLS_CHANGED);
      if (kinds & RESOURCES && announced.resources?.listChanged) session.sendShared(RESOURCES_CHANGED);
      if (kinds & PROMPTS && announced.prompts?.listChanged) session.sendShared(PROMPTS_CHANGED);
    }
  };
}
