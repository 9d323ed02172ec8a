/**
 * Things of the layers above the cluster that live in one process at a time (the child of a bridge's isolated
 * session): which process holds each, the first to claim it, until it lets go, stops renewing, or is found gone.
 * Promises: two processes claiming one name at once get the same holder; a holder is replaced only by a claim
 * naming it as gone.
 */
export interface Claims {
  /**
   * The process that holds `name`: the one that holds it now, else this one, which takes it for `ttlMs` (a claim
   * by the holder renews it). `gone`, a process found gone (a message to it reached nobody), is replaced by this
   * one if it still holds the name.
   */
  claim(name: string, ttlMs: number, gone?: string): Promise<string>;
  /** Lets `name` go, if this process holds it. */
  release(name: string): Promise<void>;
}
