/**
 * What both adapters share: the lazily parsed request target, the principal slot and the close
 * listeners, which run once however the exchange ends.
 */
export abstract class ExchangeBase {
  principal: unknown = undefined;
  scopes: readonly string[] | undefined = undefined;
  protected wroteHead = false;
  abstract readonly target: string;
  abstract readonly closed: boolean;
  private pathCache: string | undefined;
  private queryCache: URLSearchParams | undefined;
  private closeListeners: (() => void)[] | undefined;
  private closeNotified = false;

  get headWritten(): boolean {
    return this.wroteHead;
  }

  get path(): string {
    if (this.pathCache === undefined) {
      const t = this.target;
      const q = t.indexOf('?');
      this.pathCache = q === -1 ? t : t.slice(0, q);
    }
    return this.pathCache;
  }

  get query(): URLSearchParams {
    if (this.queryCache === undefined) {
      const t = this.target;
      const q = t.indexOf('?');
      this.queryCache = new URLSearchParams(q === -1 ? '' : t.slice(q + 1));
    }
    return this.queryCache;
  }

  onClose(listener: () => void): void {
    if (this.closeNotified || this.closed) {
      listener();
      return;
    }
    if (this.closeListeners === undefined) {
      this.closeListeners = [listener];
      this.watchClose();
    } else {
      this.closeListeners.push(listener);
    }
  }

  /** Called by the first `onClose`, so that exchanges nobody watches pay for no event listener. */
  protected watchClose(): void {}

  /** Runs the close listeners, once. */
  protected notifyClosed(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
