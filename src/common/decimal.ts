/** '0' to '999', and the same padded to three digits, made once. */
const UP_TO_999 = Array.from({ length: 1000 }, (_, n) => String(n));
const THREE_DIGITS = UP_TO_999.map((digits) => digits.padStart(3, '0'));

/**
 * A non-negative integer in decimal, as String(n) writes it, without V8's number-to-string cache.
 * That cache is one table for the whole heap: every number converted the first time is stored in
 * it, so a value new on each request (a client's remaining count) outlives its request in that
 * table, and each request left a string that survived the young generation's collections. Under
 * load that was most of what the service's requests promoted to the old generation, and it made
 * the young generation grow (bench/README.md, "Where the time goes"). Any other number (negative,
 * fractional, unsafe) is left to String().
 */
export function decimal(n: number): string {
  if (n < 1000 && n >= 0 && Number.isInteger(n)) return UP_TO_999[n];
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  let digits = '';
  let rest = n;
  while (rest >= 1000) {
    digits = THREE_DIGITS[rest % 1000] + digits;
    rest = Math.floor(rest / 1000);
  }
  return UP_TO_999[rest] + digits;
}
