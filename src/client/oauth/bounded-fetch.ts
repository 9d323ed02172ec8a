/**
 * `send`, whose answer must come within `ms`; past it, it rejects saying so (the callers name the request and its
 * URL). The same signal ends a body still coming, which its reader then takes for no answer (`oauthJson`). An authorization that never ended would hold every
 * request refused after it, since they wait for the one under way.
 */
export function bounded(send: typeof fetch, ms: number): typeof fetch {
  return async (input, init) => {
    const timer = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([timer, init.signal]) : timer;
    try {
      return await send(input, { ...init, signal });
    } catch (err) {
      if (!timer.aborted) throw err;
      throw new Error(`no answer within ${ms} ms (the OAuthClient's timeoutMs)`, { cause: err });
    }
  };
}
