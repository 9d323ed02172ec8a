import assert from 'node:assert/strict';
import { SSEReader } from './mcp-http.js';
import { postModern } from './modern-http.js';
import { within } from './time-limit.js';

/** What a server answered to a listen it did not serve. */
export interface ListenRefusal {
  status: number;
  message: string;
}

let nextId = 0;

/**
 * POSTs a 2026-07-28 `subscriptions/listen` for tool list changes to `<base>/mcp`: its reader once the server
 * acknowledged it (within 10 s), or the refusal's status and JSON-RPC message.
 */
export async function openRawListen(base: string): Promise<SSEReader | ListenRefusal> {
  const res = await postModern(`${base}/mcp`, `l${nextId++}`, 'subscriptions/listen', {
    notifications: { toolsListChanged: true },
  });
  if (res.status !== 200) {
    const body = (await res.json()) as { error: { message: string } };
    return { status: res.status, message: body.error.message };
  }
  const reader = new SSEReader(res);
  const ack = await within(reader.nextMessage(), 10_000, 'a listen ack');
  assert.equal(ack?.message.method, 'notifications/subscriptions/acknowledged');
  return reader;
}

/** The refusal of a listen that must not have been served. */
export function refusedListen(outcome: SSEReader | ListenRefusal): ListenRefusal {
  assert.ok(!(outcome instanceof SSEReader), 'the listen was served');
  return outcome;
}
