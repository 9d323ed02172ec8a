/** A JSON-RPC message as a client POSTed it, parsed: enough to tell requests, responses and their params. */
export interface PostedMessage {
  id?: string | number;
  method?: string;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
  result?: unknown;
  error?: unknown;
}

/** A `fetch` for an SDK's HTTP transport that also records, in order, every JSON-RPC message it POSTs. */
export interface PostTap {
  readonly fetch: typeof fetch;
  readonly posted: PostedMessage[];
}

/** Taps what a client sends on the wire, to assert its era's shape (envelopes, MRTR retries, answers). */
export function postTap(): PostTap {
  const posted: PostedMessage[] = [];
  const tapped: typeof fetch = (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const body = JSON.parse(init.body) as PostedMessage | PostedMessage[];
      posted.push(...(Array.isArray(body) ? body : [body]));
    }
    return fetch(input, init);
  };
  return { fetch: tapped, posted };
}
