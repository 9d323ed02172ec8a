/**
 * `send`, whose answer must come within `ms` (its body too, which the same signal ends); past it, it rejects
 * saying so (the callers name the request and its URL). An authorization that never ended would hold every
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
