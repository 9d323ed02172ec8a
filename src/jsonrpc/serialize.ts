import type { JsonRpcMessage } from './types.js';

// The last notification serialized, and its text. Only notifications: one built once for many sessions (a
// server-wide log, a list change) comes here once per session in a row; requests and responses are unique.
let lastNotification: JsonRpcMessage | undefined;
let lastText = '';

/**
 * The JSON text of a message. A notification sent to many peers in a row, as the same object, is serialized
 * once: this relies on the promise of `Connection.send` that a message is not changed once sent.
 */
export function serialize(message: JsonRpcMessage): string {
  if (message === lastNotification) return lastText;
  const text = JSON.stringify(message);
  if ('method' in message && !('id' in message)) {
    lastNotification = message;
    lastText = text;
  }
  return text;
}
