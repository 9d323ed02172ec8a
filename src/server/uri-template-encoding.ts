/**
 * The characters of RFC 3986 as URI templates see them, and percent-encoding both ways: what expansion
 * writes and the parser applies to literals, and what matching reads back.
 */

export const UNRESERVED = 1;
export const RESERVED = 2;
/** UNRESERVED or RESERVED for each ASCII character, 0 for the rest. */
export const CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') {
  CLASS[c.charCodeAt(0)] = UNRESERVED;
}
for (const c of ":/?#[]@!$&'()*+,;=") CLASS[c.charCodeAt(0)] = RESERVED;

export const PERCENT = 37;
const HEX_DIGITS = '0123456789ABCDEF';

/**
 * Percent-encodes what `reserved` does not let through: unreserved characters always pass; reserved
 * characters and existing pct-encoded triplets pass when `reserved`. Returns `value` itself when nothing
 * needs encoding. A lone surrogate is encoded as U+FFFD.
 */
export function encode(value: string, reserved: boolean): string {
  const mask = reserved ? UNRESERVED | RESERVED : UNRESERVED;
  let out: string | undefined;
  let copied = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 128 && (CLASS[c] & mask) !== 0) continue;
    if (reserved && c === PERCENT && isPctTriplet(value, i)) {
      i += 2;
      continue;
    }
    out = (out ?? '') + value.slice(copied, i);
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    out += utf8Percent(cp);
    copied = i + 1;
  }
  return out === undefined ? value : out + value.slice(copied);
}

function utf8Percent(cp: number): string {
  if (cp < 0x80) return pct(cp);
  if (cp < 0x800) return pct(0xc0 | (cp >> 6)) + pct(0x80 | (cp & 63));
  if (cp < 0x10000) return pct(0xe0 | (cp >> 12)) + pct(0x80 | ((cp >> 6) & 63)) + pct(0x80 | (cp & 63));
  return (
    pct(0xf0 | (cp >> 18)) +
    pct(0x80 | ((cp >> 12) & 63)) +
    pct(0x80 | ((cp >> 6) & 63)) +
    pct(0x80 | (cp & 63))
  );
}

function pct(byte: number): string {
  return '%' + HEX_DIGITS[byte >> 4] + HEX_DIGITS[byte & 15];
}

export function isPctTriplet(s: string, i: number): boolean {
  return isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Percent-decodes as UTF-8; undefined when the octets are not UTF-8. */
export function decode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
