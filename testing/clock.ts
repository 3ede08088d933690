/** A clock tests move by hand: auth caches, rate limiters and job timers read it, nothing sleeps. */
export class TestClock {
  private t: number;

  constructor(start: string | number = '2026-11-01T12:00:00Z') {
    this.t = typeof start === 'number' ? start : Date.parse(start);
  }

  /** The current time; pass `clock.now` wherever a `() => Date` is injected. */
  now = (): Date => new Date(this.t);

  advance(ms: number): void {
    this.t += ms;
  }

  set(iso: string): void {
    this.t = Date.parse(iso);
  }
}
