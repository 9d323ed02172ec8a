/** A wait in ms as the whole seconds of a Retry-After header or a "retry in N s": at least 1, never "at once". */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
