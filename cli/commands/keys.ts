import { UsageError } from '../../warehouse/errors.js';
import { SCOPES, type KeyScope, type KeyType } from '../../warehouse/key_kinds.js';
import type { CliContext } from '../context.js';
import { safeLines } from '../../lib/safe_text.js';

/** `rcm keys create`: a key whose secret is printed once. */
export async function create(ctx: CliContext, o: { tenant: string; type: KeyType; scopes: string[]; label?: string; createTenant?: boolean; json?: boolean }): Promise<void> {
  const scopes = o.scopes.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length) throw new UsageError(`unknown scope(s) ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
  await ctx.withState(async (st) => {
    if (o.createTenant && !(await st.admin.findTenants()).some((t) => t.id === o.tenant || t.name === o.tenant)) await st.admin.createTenant(o.tenant);
    const { record, secret } = await st.admin.createKey({ tenant: o.tenant, type: o.type, scopes: scopes as KeyScope[], label: o.label });
    if (o.json) return ctx.json({ ...record, key: secret });
    ctx.io.stdout(safeLines([`created ${record.id} (${record.type}, scopes ${record.scopes.join(',')}) for tenant ${record.tenant_id}`, `key (shown once): ${secret}`]));
  });
}

/** `rcm keys list`: keys, never their secrets. */
export function list(ctx: CliContext, o: { tenant?: string; json?: boolean }): Promise<void> {
  return ctx.withState(async (st) => {
    const keys = await st.admin.findKeys(o.tenant ? (await st.admin.getTenant(o.tenant)).id : undefined);
    if (o.json) return ctx.json(keys);
    ctx.io.stdout(safeLines(keys.map((k) => `${k.id}  ${k.prefix}…  ${k.type}  ${k.scopes.join(',')}  tenant=${k.tenant_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`)));
  });
}

/** `rcm keys revoke`: a running server rejects the key on its next request. */
export function revoke(ctx: CliContext, id: string): Promise<void> {
  return ctx.withState(async (st) => {
    const k = await st.admin.revokeKey(id);
    ctx.io.stdout(safeLines([`revoked ${k.id} at ${k.revoked_at}`]));
  });
}

/** `rcm tenants create`. */
export function createTenant(ctx: CliContext, name: string): Promise<void> {
  return ctx.withState(async (st) => {
    const t = await st.admin.createTenant(name);
    ctx.io.stdout(safeLines([`created tenant ${t.name} (${t.id})`]));
  });
}

/** `rcm tenants list`. */
export function listTenants(ctx: CliContext): Promise<void> {
  return ctx.withState(async (st) => {
    // Tenant names are data (a playground session names its own): terminal-safe.
    ctx.io.stdout(safeLines((await st.admin.findTenants()).map((t) => `${t.id}  ${t.name}  ${t.created_at}`)));
  });
}
