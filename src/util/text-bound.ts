/**
 * The most UTF-16 code units V8 puts in one string on 64-bit Node (its `String::kMaxLength`, 2^29 - 24; node's
 * `buffer.constants.MAX_STRING_LENGTH`). UTF-8 takes at least one byte per code unit, so a text of at most this
 * many bytes always decodes; a longer one throws where it is decoded, which no caller expects.
 */
export const LONGEST_TEXT_BYTES = 2 ** 29 - 24;

/**
 * `bytes` as a bound on a text read into memory and decoded whole (a request body, a stdio line), or a
 * RangeError naming the option `name` when it is not a whole number from 1 to `LONGEST_TEXT_BYTES`.
 */
export function textBound(name: string, bytes: number): number {
  if (Number.isSafeInteger(bytes) && bytes >= 1 && bytes <= LONGEST_TEXT_BYTES) return bytes;
  throw new RangeError(
    `${name} must be a whole number of bytes from 1 to ${LONGEST_TEXT_BYTES} (what is read is decoded into one ` +
      `string, and V8 makes none longer), not ${bytes}`,
  );
}
