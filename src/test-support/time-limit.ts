/** Rejects with `label` when `promise` has not settled within `ms`; otherwise settles as it does. */
export function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${label}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves once `check` holds (polled every 10 ms); rejects with `label` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  label: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
