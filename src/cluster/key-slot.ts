/** How many hash slots a Redis Cluster has. */
const SLOTS = 16384;

/**
 * The hash slot of `key` in a Redis Cluster: CRC16 (XMODEM) of its hash tag, the part between its first `{` and
 * the first `}` after it when that is not empty, else of the whole key (as UTF-8), modulo 16384. Keys, and the
 * channels of sharded pub/sub, of one slot are served by one shard.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  let [start, end] = [0, bytes.length];
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) [start, end] = [open + 1, close];
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i] << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % SLOTS;
}
