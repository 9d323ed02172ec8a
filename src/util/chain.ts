/** What a `Chain` holds: the chain keeps its links on the item itself. */
export interface Linked<T> {
  /** @internal The chain's links; an item is in at most one chain. */
  chainPrevious: T | undefined;
  /** @internal */
  chainNext: T | undefined;
}

/**
 * A set of items that come and go often and are seldom read all at once: a stateless endpoint's POSTs being
 * answered, one added and removed per POST. The links live on the items, so adding and removing allocate
 * nothing; a Set would allocate its table as it grows and again as it shrinks. An item is in one chain at most.
 */
export class Chain<T extends Linked<T>> {
  private head: T | undefined;

  /** Adds `item`, which is in no chain. */
  add(item: T): void {
    const head = this.head;
    item.chainPrevious = undefined;
    item.chainNext = head;
    if (head !== undefined) head.chainPrevious = item;
    this.head = item;
  }

  /** Removes `item`, which is in this chain or in none (then nothing changes). */
  delete(item: T): void {
    const { chainPrevious: previous, chainNext: next } = item;
    if (previous !== undefined) previous.chainNext = next;
    else if (this.head === item) this.head = next;
    else return;
    if (next !== undefined) next.chainPrevious = previous;
    item.chainPrevious = undefined;
    item.chainNext = undefined;
  }

  /** Every item, latest added first: a copy, so that the caller may add and remove items as it goes through it. */
  values(): T[] {
    const items: T[] = [];
    for (let item = this.head; item !== undefined; item = item.chainNext) items.push(item);
    return items;
  }
}
