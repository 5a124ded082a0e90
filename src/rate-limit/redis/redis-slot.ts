/** CRC16/XMODEM, the checksum Redis Cluster maps keys to slots with (its cluster spec). */
const TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  return crc & 0xffff;
});

/**
 * The Cluster slot (0-16383) of `key`, as Redis computes it: of the hash tag (the part between
 * the first `{` and the next `}`, when not empty), else of the whole key, as UTF-8 bytes.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed, 'utf8'))
    crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc % 16384;
}
