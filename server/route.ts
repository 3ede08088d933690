import type { z } from 'zod';
import type { SnapshotReader } from '../warehouse/snapshot.js';
import type { StateStore } from '../warehouse/state.js';

export type Scope = 'knowledge' | 'agents' | 'audit' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reliability {
  generated_at: string;
  data_sources: Record<string, { publisher: string; source_files: string[]; loaded_at: string }>;
  dataset_versions: Record<string, string>;
  degraded: boolean;
  warnings: string[];
}

export interface AuthInfo {
  tenant_id: string;
  key_id: string;
  key_type: 'test' | 'live';
  scopes: Scope[];
}

/** Everything a handler may use; no Koa objects reach handlers. */
export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The snapshot this request reads (the same one for the whole request, even across a swap). */
  snapshot: SnapshotReader;
  state: StateStore;
  auth: AuthInfo | null;
  requestId: string;
  now: () => Date;
  /**
   * Builds the reliability object. `used` maps each dataset to the version label the answer came
   * from; a plain list means "the latest loaded version". Datasets not loaded mark it degraded.
   */
  reliability(used: string[] | Record<string, string>, opts?: { warnings?: string[]; degraded?: boolean }): Reliability;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteDef<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/codes/{code}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Required key scope; `null` for routes open without a key (health checks). */
  scope: Scope | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of the success body (drives OpenAPI and contract tests). */
  response: z.ZodType;
  /** Success status (200 unless stated). */
  status?: number;
  /** Error statuses besides 401/403/422/429/500 that this route can answer (e.g. 404). */
  errors?: number[];
  /**
   * Answer depends only on snapshot + request: memoise per snapshot (the serialized JSON).
   * `'daily'` when it also depends on today's date (a date parameter defaulting to today): the
   * UTC date joins the key.
   */
  cache?: boolean | 'daily';
  /** Content type for non-JSON answers (metrics). */
  contentType?: string;
  /** The route answers even when no snapshot is mounted (health, meta). */
  noSnapshot?: boolean;
  handler(ctx: RouteContext<Infer<P>, Infer<Q>, Infer<B>>): unknown | Promise<unknown>;
}

/** Declares a route once; the table in `server/routes.ts` feeds Koa, validation, OpenAPI and MCP. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}
