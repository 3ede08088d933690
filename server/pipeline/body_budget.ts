import { DomainError } from '../../warehouse/errors.js';

/**
 * The request-body bytes a process holds at once, in total and per client address: a body is
 * read only after its caller passed host, key and rate limit, and only within this budget, so no
 * crowd of slow or large uploads (with or without a key) can take the process's memory. A
 * reservation is the body's declared length (its route's limit when chunked), held until the
 * answer is sent; one that does not fit is 503 `service_busy` with Retry-After.
 */
export class BodyBudget {
  private used = 0;
  private readonly byClient = new Map<string, number>();

  constructor(
    /** `RCM_BODY_BUDGET_MB`: every body in flight together. */
    readonly totalBytes: number,
    /** One client address's share (a quarter of the total). */
    readonly perClientBytes: number = Math.floor(totalBytes / 4),
  ) {}

  /** Reserves `bytes` for `client`; returns the release (idempotent). Throws 503 when it does not fit. */
  reserve(client: string, bytes: number): () => void {
    const mine = this.byClient.get(client) ?? 0;
    if (this.used + bytes > this.totalBytes || mine + bytes > this.perClientBytes) {
      const whose = mine + bytes > this.perClientBytes ? 'this client address' : 'this server';
      throw new DomainError('service_busy', `too many request bodies in flight for ${whose}; try again shortly`, { headers: { 'retry-after': '1' } });
    }
    this.used += bytes;
    this.byClient.set(client, mine + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      const left = (this.byClient.get(client) ?? bytes) - bytes;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
  }

  /** Bytes reserved now (metrics, tests). */
  get inFlight(): number {
    return this.used;
  }
}
