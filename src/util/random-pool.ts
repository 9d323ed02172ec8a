import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

let pool: Buffer = Buffer.alloc(0);
let offset = 0;

/**
 * `n` bytes (at most 4096) from the system's CSPRNG, read 4 KiB at a time: one system call per few hundred
 * session ids instead of one each, as node's own `randomUUID` does. Each pool is used once and never rewritten,
 * so the view returned keeps its bytes.
 */
export function randomBytesPooled(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + n);
  offset += n;
  return bytes;
}
