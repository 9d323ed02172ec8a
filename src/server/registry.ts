import { type Access, admits, type Caller, ScopeError, shortfall } from './access.js';

/** What a registry holds for one registered item: built once per registration or update. */
export interface Entry<T> {
  /** The name or URI the item is found by; unique in its registry. */
  readonly key: string;
  /** Registration order, shared by all registries of a server; kept across updates. */
  readonly seq: number;
  /** The object clients see in the list (a Tool, Resource, ResourceTemplate or Prompt). */
  readonly published: T;
  /** Who may see and use it; undefined: every caller. */
  readonly access: Access | undefined;
  enabled: boolean;
}

/** The enabled entries in registration order, and their published objects in the same order. */
export interface Listing<E extends Entry<T>, T> {
  readonly entries: E[];
  readonly published: T[];
}

/**
 * What changed in a registry, for whom: the access of each entry the change concerned, before and after (an
 * undefined one concerns every caller).
 */
export type ChangeAudience = readonly (Access | undefined)[];

/**
 * The items of one kind a server offers, by key. Every change calls `onchange`, which lets the
 * server recompute its capabilities and tell sessions that the list changed; the listing of
 * enabled items is rebuilt on the first read after a change, never per request. Entries guarded by
 * an `Access` are filtered per caller; a registry with none serves every caller the one listing.
 */
export class Registry<E extends Entry<T>, T> {
  private readonly byKey = new Map<string, E>();
  private listing: Listing<E, T> | undefined;
  /** How many registered entries have an `Access`. */
  private guardedCount = 0;

  /** `label` names an item in errors, e.g. 'Tool' or 'Resource template'. */
  constructor(
    readonly label: string,
    private readonly onchange: (audience: ChangeAudience) => void,
  ) {}

  /** True when some entry is not for every caller: its lists differ between callers. */
  get guarded(): boolean {
    return this.guardedCount > 0;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The entry registered under `key`, enabled or not. */
  get(key: string): E | undefined {
    return this.byKey.get(key);
  }

  /** The entry registered under `key` when it is enabled. */
  find(key: string): E | undefined {
    const entry = this.byKey.get(key);
    return entry?.enabled ? entry : undefined;
  }

  /**
   * The enabled entry under `key` that `caller` may use: undefined when there is none or it is hidden from them;
   * throws ScopeError when their token lacks the scopes it needs.
   */
  findFor(key: string, caller: Caller): E | undefined {
    const entry = this.find(key);
    return entry === undefined ? undefined : this.usable(entry, caller);
  }

  /** `entry` when `caller` may use it, as `findFor` says. */
  usable(entry: E, caller: Caller): E | undefined {
    const lack = shortfall(entry.access, caller);
    if (lack === undefined) return entry;
    if (lack === 'hidden') return undefined;
    throw new ScopeError(this.label, entry.key, entry.access!.scopes!, lack.scopes);
  }

  values(): IterableIterator<E> {
    return this.byKey.values();
  }

  /** True when `entry` is the one currently registered under its key. */
  holds(entry: E): boolean {
    return this.byKey.get(entry.key) === entry;
  }

  add(entry: E): void {
    this.assertFree(entry.key);
    this.byKey.set(entry.key, entry);
    if (entry.access !== undefined) this.guardedCount++;
    this.changed([entry.access]);
  }

  /** Puts `next` (an update of `current`, maybe under a new key) in its place. */
  replace(current: E, next: E): void {
    if (next.key !== current.key) {
      this.assertFree(next.key);
      this.byKey.delete(current.key);
    }
    this.byKey.set(next.key, next);
    this.guardedCount += Number(next.access !== undefined) - Number(current.access !== undefined);
    this.changed([current.access, next.access]);
  }

  remove(entry: E): void {
    if (!this.holds(entry)) return;
    this.byKey.delete(entry.key);
    if (entry.access !== undefined) this.guardedCount--;
    this.changed([entry.access]);
  }

  setEnabled(entry: E, enabled: boolean): void {
    if (entry.enabled === enabled) return;
    entry.enabled = enabled;
    if (this.holds(entry)) this.changed([entry.access]);
  }

  /** The enabled items in registration order; shared, never to be mutated. */
  list(): Listing<E, T> {
    if (this.listing === undefined) {
      const entries: E[] = [];
      for (const entry of this.byKey.values()) if (entry.enabled) entries.push(entry);
      // A renamed item moved to the end of the map; its place in the list is where it was registered.
      entries.sort((a, b) => a.seq - b.seq);
      this.listing = { entries, published: entries.map((e) => e.published) };
    }
    return this.listing;
  }

  /** The enabled items `caller` may see, in registration order; shared, never to be mutated. */
  listFor(caller: Caller): Listing<E, T> {
    const all = this.list();
    if (this.guardedCount === 0) return all;
    const entries = all.entries.filter((e) => admits(e.access, caller));
    return entries.length === all.entries.length
      ? all
      : { entries, published: entries.map((e) => e.published) };
  }

  private assertFree(key: string): void {
    if (this.byKey.has(key)) throw new Error(`${this.label} "${key}" is already registered`);
  }

  private changed(audience: ChangeAudience): void {
    this.listing = undefined;
    this.onchange(audience);
  }
}

/**
 * What registering a tool, resource, template or prompt returns: the means to change or withdraw
 * it later. Every change reaches connected clients as one `list_changed` notification per kind
 * and tick.
 */
export interface Handle<U> {
  /** True while the item is registered and enabled. */
  readonly enabled: boolean;
  /** Lists the item again and lets clients use it. */
  enable(): void;
  /** Hides the item from lists and refuses its use, keeping its registration. */
  disable(): void;
  /** Unregisters the item; its name or URI can be registered again. */
  remove(): void;
  /**
   * Changes some of the item's fields (and callbacks). Throws, changing nothing, when the new
   * definition is invalid, renames onto a taken name, or the item was removed.
   */
  update(changes: U): void;
}

/** The one Handle implementation: `rebuild` makes the updated entry from the current one. */
export class RegistryHandle<E extends Entry<T>, T, U> implements Handle<U> {
  constructor(
    private readonly registry: Registry<E, T>,
    private entry: E,
    private readonly rebuild: (current: E, changes: U) => E,
  ) {}

  get enabled(): boolean {
    return this.entry.enabled && this.registry.holds(this.entry);
  }

  enable(): void {
    this.registry.setEnabled(this.entry, true);
  }

  disable(): void {
    this.registry.setEnabled(this.entry, false);
  }

  remove(): void {
    this.registry.remove(this.entry);
  }

  update(changes: U): void {
    if (!this.registry.holds(this.entry)) {
      throw new Error(`${this.registry.label} "${this.entry.key}" was removed; register it again instead`);
    }
    const next = this.rebuild(this.entry, changes);
    next.enabled = this.entry.enabled;
    this.registry.replace(this.entry, next);
    this.entry = next;
  }
}
