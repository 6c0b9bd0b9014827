import { ServerError, UsageError, visible } from '@data/core';
import type { Context } from '../context.js';
import type { Found } from '../credentials/store.js';
import { credentialOf, requireToken, useCredential } from './auth-common.js';

/**
 * The token `data publish` publishes with: the stored one or DATA_TOKEN; else, in a CI job
 * that offers an OpenID Connect ID token (GitHub Actions with `id-token: write`, or
 * DATA_ID_TOKEN), a token the hub gives for it that may publish this one dataset for
 * fifteen minutes (trusted publishing); else exit 4, naming the ways to get one.
 */
export async function publishCredential(ctx: Context, dataset: string | undefined): Promise<Found> {
  const api = ctx.hub().api;
  const stored = await credentialOf(ctx);
  if (stored) return stored;
  const { idTokenSource, jobIdToken, tradeIdToken } = await import('../client/publishers.js');
  const source = idTokenSource(ctx.io.env);
  if (!source) return await requireToken(ctx);
  // Always the owner with the name: by a name alone the hub would have to pick among every
  // owner's publishers, and anyone may add a publisher naming someone else's repository.
  const [owner, name] = dataset?.split('/') ?? [];
  if (owner === undefined || name === undefined)
    throw new UsageError(
      "publish: trusted publishing needs the dataset's owner, the user or organisation whose trusted publisher this job is",
      {
        // The dataset's name is known (a name alone: no owner); its owner is what is missing.
        hint: `data publish --owner OWNER (as \`data publisher add OWNER/${visible(owner ?? 'DATASET')}\` named it)`,
      },
    );
  const where =
    source.kind === 'github'
      ? "this GitHub Actions job's ID token"
      : 'the ID token in DATA_ID_TOKEN';
  const idToken = await jobIdToken(source, api.replace(/\/+$/, ''), ctx.fetch, ctx.signal);
  const traded = await tradeIdToken(idToken, `${owner}/${name}`, api, ctx.fetch, ctx.signal);
  if (traded.dataset.split('/')[0]?.toLowerCase() !== owner.toLowerCase())
    throw new ServerError(
      `publish: the hub gave a token for ${visible(traded.dataset)}, not for a dataset of ${visible(owner)}`,
    );
  ctx.io.stderr.write(
    `note: publishing ${visible(traded.dataset)} as its trusted publisher, with ${where} (until ${visible(traded.expires)})\n`,
  );
  return useCredential(ctx, {
    token: traded.token,
    profile: undefined,
    source: 'trusted',
    location: where,
  });
}
