import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import { HubApi } from '../client/api.js';
import type { Found } from '../credentials/store.js';

export function hubApi(ctx: Context): HubApi {
  return new HubApi(ctx.hub().api, ctx.fetch, ctx.signal);
}

/** The stored or DATA_TOKEN token for the hub, or exit 4 naming both ways to get one. */
export async function requireToken(ctx: Context): Promise<Found> {
  const found = await ctx.credentials.get(ctx.hub().api);
  if (!found)
    throw new AuthError(
      `not logged in to ${ctx.hub().api}`,
      'run `data login`, or set DATA_TOKEN (for CI)',
    );
  return found;
}

/** The stored or DATA_TOKEN token for the hub, if any: reads of public data need none. */
export async function storedToken(ctx: Context): Promise<string | undefined> {
  return (await ctx.credentials.get(ctx.hub().api))?.token;
}

export function writeJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
