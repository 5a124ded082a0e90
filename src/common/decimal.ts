const UP_TO_999 = Array.from({ length: 1000 }, (_, n) => String(n));
const THREE_DIGITS = UP_TO_999.map((digits) => digits.padStart(3, '0'));

/**
 * String(n) for a non-negative integer, without V8's heap-wide number-to-string cache, where each
 * request's new value outlived it and was promoted to the old generation (bench/README.md).
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
