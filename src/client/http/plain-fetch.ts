/**
 * `custom`, or else the global fetch (looked up at each call, so a later polyfill or stub is used), as a function
 * that calls it unbound. A browser's fetch throws "Illegal invocation" when called with any `this` but the
 * window, which `this.fetch(...)` on a transport that kept it as a field would be.
 */
export function plainFetch(custom: typeof fetch | undefined): typeof fetch {
  return custom === undefined
    ? (input, init) => globalThis.fetch(input, init)
    : (input, init) => custom(input, init);
}
