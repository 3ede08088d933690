import { Option, type Command } from 'commander';
import { UsageError } from '../../warehouse/errors.js';
import { SCOPES, type KeyScope, type KeyType } from '../../warehouse/tenant_state.js';
import type { CliContext } from '../context.js';

export function register(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description('Manage API keys (stored hashed; works while the server runs)');
  keys
    .command('create')
    .description('Create a key; the secret is printed once')
    .requiredOption('--tenant <tenant>', 'tenant id or name (created if --create-tenant)')
    .addOption(new Option('--type <type>', 'key type: test keys work on the test host, live keys on RCM_LIVE_HOSTS').choices(['test', 'live']).default('test'))
    .option('--scopes <scopes...>', `scopes (${SCOPES.join(', ')})`, ['knowledge'])
    .option('--label <label>', 'a note to recognise the key')
    .option('--create-tenant', 'create the tenant when it does not exist')
    .option('--json', 'print JSON')
    .action(async (o: { tenant: string; type: KeyType; scopes: string[]; label?: string; createTenant?: boolean; json?: boolean }) => {
      const scopes = o.scopes.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
      const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (bad.length) throw new UsageError(`unknown scope(s) ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
      await ctx.withState(async (st) => {
        if (o.createTenant && !(await st.admin.findTenants()).some((t) => t.id === o.tenant || t.name === o.tenant)) await st.admin.createTenant(o.tenant);
        const { record, secret } = await st.admin.createKey({ tenant: o.tenant, type: o.type, scopes: scopes as KeyScope[], label: o.label });
        if (o.json) return ctx.json({ ...record, key: secret });
        ctx.io.stdout(`created ${record.id} (${record.type}, scopes ${record.scopes.join(',')}) for tenant ${record.tenant_id}\nkey (shown once): ${secret}\n`);
      });
    });
  keys
    .command('list')
    .description('List keys (never the secrets)')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--json', 'print JSON')
    .action((o: { tenant?: string; json?: boolean }) =>
      ctx.withState(async (st) => {
        const list = await st.admin.findKeys(o.tenant ? (await st.admin.getTenant(o.tenant)).id : undefined);
        if (o.json) return ctx.json(list);
        for (const k of list) ctx.io.stdout(`${k.id}  ${k.prefix}…  ${k.type}  ${k.scopes.join(',')}  tenant=${k.tenant_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
      }),
    );
  keys
    .command('revoke')
    .description('Revoke a key; a running server rejects it on the next request')
    .argument('<id>', 'key id (from `rcm keys list`)')
    .action((id: string) =>
      ctx.withState(async (st) => {
        const k = await st.admin.revokeKey(id);
        ctx.io.stdout(`revoked ${k.id} at ${k.revoked_at}\n`);
      }),
    );

  const tenants = program.command('tenants').description('Manage tenants');
  tenants
    .command('create')
    .description('Create a tenant')
    .argument('<name>', 'tenant name')
    .action((name: string) =>
      ctx.withState(async (st) => {
        const t = await st.admin.createTenant(name);
        ctx.io.stdout(`created tenant ${t.name} (${t.id})\n`);
      }),
    );
  tenants
    .command('list')
    .description('List tenants')
    .action(() =>
      ctx.withState(async (st) => {
        for (const t of await st.admin.findTenants()) ctx.io.stdout(`${t.id}  ${t.name}  ${t.created_at}\n`);
      }),
    );
}
