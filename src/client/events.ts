/** A listener for event `K` of the map `E`: event name → listener arguments. */
export type Listener<E, K extends keyof E> = E[K] extends unknown[] ? (...args: E[K]) => void : never;

/**
 * A minimal typed event registry. Unlike node's EventEmitter, a listener that throws does not
 * stop the others nor reach the emitter's caller: its error goes to `onListenerError`. Nothing is
 * allocated until the first listener is added, and emitting an event nobody listens to is one
 * map lookup.
 */
export class Events<E extends { [K in keyof E]: unknown[] }> {
  private listeners: Map<keyof E, Set<(...args: any[]) => void>> | undefined;

  constructor(private readonly onListenerError: (err: unknown) => void) {}

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof E>(event: K, listener: Listener<E, K>): () => void {
    this.listeners ??= new Map();
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return () => this.off(event, listener);
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof E>(event: K, listener: Listener<E, K>): void {
    this.listeners?.get(event)?.delete(listener);
  }

  emit<K extends keyof E>(event: K, ...args: E[K]): void {
    const set = this.listeners?.get(event);
    if (set === undefined) return;
    for (const listener of set) {
      try {
        listener(...args);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
