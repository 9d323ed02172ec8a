import { formatRetry } from '../../../http/sse-event.js';

// `data` is JSON.stringify output (it never holds a raw line break) and ids are the server's own (visible
// ASCII), so live frames need none of formatSseEvent's checks.
export function sseFrame(data: string): string {
  return `data: ${data}\n\n`;
}

export function eventFrame(id: string, data: string): string {
  return `id: ${id}\ndata: ${data}\n\n`;
}

/** The priming event (SEP-1699): an id, the reconnection delay, and empty data. */
export function primeFrame(id: string, retryMs: number): string {
  return `id: ${id}\n${formatRetry(retryMs)}data: \n\n`;
}
