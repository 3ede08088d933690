/** Test or live: a key's kind, and the world (mode) of a tenant's data it reads and writes. */
export type KeyType = 'test' | 'live';
export const SCOPES = ['knowledge', 'agents', 'audit', 'admin'] as const;
export type KeyScope = (typeof SCOPES)[number];
