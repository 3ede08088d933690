/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    /** Seconds the run took (10 ms resolution). */
    duration: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: { method?: string; setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }[];
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
