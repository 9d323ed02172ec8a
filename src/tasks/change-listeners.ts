import type { TaskRecord } from './task-store.js';

/**
 * The `onChange` listeners of a task store. Each `add` is an entry of its own (one function may listen twice and
 * stop once), and each listener hears a change in a microtask of its own, in order, so that a listener that
 * throws or adds listeners cannot disturb the store or the others.
 */
export class ChangeListeners {
  private readonly listeners = new Set<(task: TaskRecord) => void>();

  add(listener: (task: TaskRecord) => void): () => void {
    const mine = (task: TaskRecord) => listener(task);
    this.listeners.add(mine);
    return () => {
      this.listeners.delete(mine);
    };
  }

  emit(task: TaskRecord): void {
    for (const listener of this.listeners) queueMicrotask(() => listener(task));
  }
}
