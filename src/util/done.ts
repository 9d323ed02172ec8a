/**
 * A promise already resolved: what a `Promise<void>` method answers when it finished at once, so such an answer
 * allocates nothing. It never changes and is never rejected; callers may compare against it to skip a turn.
 */
export const DONE: Promise<void> = Promise.resolve();
