/** The slot function ioredis routes Cluster commands with (the package ships no types). */
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0-16383) of `key`: of its hash tag when not empty, as UTF-8 bytes. */
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
