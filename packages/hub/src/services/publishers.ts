/**
 * Trusted publishers of a dataset, and the trade of a CI job's ID token for a hub token
 * that may publish the one dataset whose publisher its claims match (kind `trusted`, scope
 * `publish`, fifteen minutes; http/callers.ts makes it a Caller).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PublisherRecord, TrustedAnswer } from '@data/core';
import type { Publisher } from '../engines/metadata/publishers.js';
import type { HubParts } from '../parts.js';
import { HttpError } from '../http-error.js';
import { signToken } from './tokens.js';
import {
  claimsMatch,
  claimsProblem,
  loggableClaims,
  TrustRefused,
  type IdTokenVerifier,
} from './trusted-publishing.js';

/** How long a trusted publisher's hub token lives: long enough for one publication. */
export const TRUSTED_TOKEN_SECONDS = 15 * 60;

/** Publishers one dataset may have. */
export const MAX_PUBLISHERS = 20;

/** Seconds a traded ID token is remembered past its expiry: the verifier's clock tolerance and more. */
const CLOCK_SLACK_S = 60;

/**
 * The id under which a traded ID token is remembered (with the revoked tokens, until it
 * expires): its issuer and `jti`, or all its claims when it has no jti. Hashed, so that any
 * jti fits, and the claims are read decoded, so that another encoding of the same token is
 * the same.
 */
function tradedKey(issuer: string, claims: Record<string, unknown>): string {
  const id = typeof claims.jti === 'string' ? claims.jti : JSON.stringify(claims);
  return `id-token:${createHash('sha256').update(`${issuer}\n${id}`).digest('hex')}`;
}

/**
 * Removes a publisher of a dataset: the workflow trades no token from then on, and the
 * tokens it traded already (and the service tokens issued from them) die at once, on every
 * hub process, as a revoked token does. Undefined when the dataset has no such publisher.
 */
export async function removePublisher(
  store: HubParts['store'],
  ownerid: string,
  dataset: string,
  id: string,
): Promise<Publisher | undefined> {
  const removed = await store.publishers.remove(ownerid, dataset, id);
  if (removed) await revokeTradedTokens(store, removed.id);
  return removed;
}

/**
 * Revokes the tokens a publisher (removed, or gone with its organisation) traded, and the
 * service tokens issued from them, on every hub process: its id is remembered as revoked
 * for as long as a traded token lives.
 */
export async function revokeTradedTokens(
  store: Pick<HubParts['store'], 'remember'>,
  publisherId: string,
): Promise<void> {
  await store.remember(
    publisherId,
    Math.floor(Date.now() / 1000) + TRUSTED_TOKEN_SECONDS + CLOCK_SLACK_S,
  );
}

/** An ID token longer than this is no ID token (GitHub's are about 1.5 KB). */
const MAX_ID_TOKEN_CHARS = 16 * 1024;

/** A publisher as the API shows it: its dataset by the owner's name, its maker's name. */
export async function shownPublisher(
  store: HubParts['store'],
  owner: string,
  publisher: Publisher,
): Promise<PublisherRecord> {
  const maker = await store.userById(publisher.created_by);
  return {
    id: publisher.id,
    dataset: `${owner}/${publisher.dataset}`,
    issuer: publisher.issuer,
    claims: publisher.claims,
    created: publisher.created,
    created_by: maker?.username ?? null,
  };
}

/**
 * Adds a publisher to a dataset (which may not exist yet): its issuer must be one the hub
 * trusts, its claims at least one that does not change with every token. The same issuer
 * and claims given again answer the publisher kept already (`added` false).
 */
export async function addPublisher(
  parts: Pick<HubParts, 'store' | 'options'>,
  verifier: IdTokenVerifier,
  asked: { ownerid: string; dataset: string; issuer: unknown; claims: unknown; by: string },
): Promise<{ publisher: Publisher; added: boolean }> {
  const { store } = parts;
  if (!verifier.enabled)
    throw new HttpError(
      400,
      'this hub trusts no issuer of ID tokens: its operator lists them in trustedIssuers of the hub configuration',
    );
  const issuer = asked.issuer;
  if (typeof issuer !== 'string' || !verifier.trusted.includes(issuer))
    throw new HttpError(
      400,
      `the issuer must be one this hub trusts: ${verifier.trusted.join(', ')} (as its tokens' iss says it)`,
    );
  const problem = claimsProblem(asked.claims);
  if (problem !== undefined) throw new HttpError(400, problem);
  const claims = asked.claims as Record<string, string>;
  // A dataset that exists is named as it is; one that does not yet, as given.
  const [dataset] = await store.datasetsInAnyCase(asked.ownerid, asked.dataset);
  const publisher: Publisher = {
    id: randomBytes(6).toString('hex'),
    ownerid: asked.ownerid,
    dataset: dataset?.name ?? asked.dataset,
    issuer,
    claims: Object.fromEntries(Object.entries(claims).sort(([a], [b]) => (a < b ? -1 : 1))),
    created: new Date().toISOString(),
    created_by: asked.by,
  };
  // The same publisher, and the caps, are looked for as it is kept, in one transaction:
  // racing additions neither pass a cap nor keep one publisher twice.
  const perOwner = parts.options.caps.maxPublishersPerOwner;
  const added = await store.publishers.add(publisher, { perDataset: MAX_PUBLISHERS, perOwner });
  if ('same' in added) return { publisher: added.same, added: false };
  if ('full' in added)
    throw new HttpError(
      409,
      added.full === 'perDataset'
        ? `a dataset has at most ${String(MAX_PUBLISHERS)} trusted publishers: remove one first`
        : `the datasets of this owner have ${String(perOwner)} trusted publishers in all, the most this hub allows: remove one first`,
    );
  if ('taken' in added) throw new HttpError(503, 'the publisher could not be kept: try again');
  return { publisher, added: true };
}

/** What a trade needs of the hub: its database, keys, log, address and verifier. */
export type TradeParts = Pick<HubParts, 'store' | 'keys' | 'log' | 'base'> & {
  readonly idTokens: IdTokenVerifier;
};

/**
 * Trades an ID token for a hub token that may publish one dataset: the token must verify
 * (issuer, signature, audience the hub's address, expiry), and a publisher of the dataset
 * asked (`owner/dataset`, always with its owner) must match its claims. Every trade, and every refusal of a verified token, is logged with its claims.
 */
export async function tradeIdToken(
  hub: TradeParts,
  body: unknown,
  requestId: string,
): Promise<TrustedAnswer> {
  const { token, dataset: asked } = (body ?? {}) as Record<string, unknown>;
  if (typeof token !== 'string' || token === '' || token.length > MAX_ID_TOKEN_CHARS)
    throw new TrustRefused(400, 'token', 'give the ID token as "token" in a JSON object');
  // Always the owner too: matched against every owner's publishers, a token would publish
  // wherever anyone added a publisher naming its repository (someone else's, as likely).
  if (typeof asked !== 'string' || !/^[^/]+\/[^/]+$/.test(asked))
    throw new TrustRefused(
      400,
      'dataset',
      '"dataset" must name the owner and the dataset: "owner/dataset"',
    );
  if (!hub.idTokens.enabled)
    throw new TrustRefused(
      401,
      'issuer',
      'this hub trusts no issuer of ID tokens: its operator lists them in trustedIssuers',
    );
  const { issuer, claims } = await hub.idTokens.verify(token, hub.base);
  const shown = JSON.stringify(loggableClaims(claims));
  const match = await matchingPublisher(hub, issuer, claims, asked);
  if ('refused' in match) {
    hub.log(
      `trusted publishing refused (${match.refused.check}) a token of ${issuer} with ${shown}`,
      {
        level: 'warn',
        requestId,
      },
    );
    throw match.refused;
  }
  const { publisher, owner } = match;
  // Read before the trade is recorded: a failure here leaves the ID token untraded.
  const [existing] = await hub.store.datasetsInAnyCase(publisher.ownerid, publisher.dataset);
  const name = existing?.name ?? publisher.dataset;
  // One ID token trades once: a token that leaked from a job's log or a proxy publishes
  // nothing more. Each `data publish` asks GitHub for a new one; GitLab's id_tokens are one
  // per job, so a publication retried within a job is refused, and a re-run job trades anew.
  // Recorded and checked in one statement, so that two trades of one token at once cannot
  // both find it untraded.
  const traded = tradedKey(issuer, claims);
  const idExp = typeof claims.exp === 'number' ? claims.exp : 0;
  const until = Math.max(idExp, Math.floor(Date.now() / 1000)) + CLOCK_SLACK_S;
  if (!(await hub.store.remember(traded, until))) {
    hub.log(`trusted publishing refused (token) a token of ${issuer} traded already: ${shown}`, {
      level: 'warn',
      requestId,
    });
    throw new TrustRefused(
      401,
      'token',
      'this ID token was traded already: an ID token trades once, ask the CI for a new one',
    );
  }
  const exp = Math.floor(Date.now() / 1000) + TRUSTED_TOKEN_SECONDS;
  const hubToken = signToken(hub.keys, {
    kind: 'trusted',
    userid: publisher.ownerid,
    dataset: `${publisher.ownerid}/${name}`,
    publisher: publisher.id,
    // It dies with its publisher: removing the publisher revokes this id (removePublisher),
    // and the service tokens issued from it name it as their parent too.
    parent: publisher.id,
    jti: randomBytes(16).toString('hex'),
    exp,
  });
  hub.log(
    `trusted publishing: a token of ${issuer} with ${shown} may publish ${owner}/${name} until ${new Date(exp * 1000).toISOString()} (publisher ${publisher.id})`,
    { level: 'info', audit: true, requestId, userId: publisher.ownerid },
  );
  return {
    token: hubToken,
    dataset: `${owner}/${name}`,
    expires: new Date(exp * 1000).toISOString(),
  };
}

/** The publisher of the dataset asked whose claims a verified token's match, with its owner's name; or the refusal. */
async function matchingPublisher(
  hub: TradeParts,
  issuer: string,
  claims: Record<string, unknown>,
  asked: string,
): Promise<{ publisher: Publisher; owner: string } | { refused: TrustRefused }> {
  const [owner = '', name = ''] = asked.split('/');
  const user = await hub.store.userByName(owner.toLowerCase());
  const publishers = user ? await hub.store.publishers.list(user.userid, name) : [];
  const found = publishers.find(
    (publisher) => publisher.issuer === issuer && claimsMatch(publisher.claims, claims),
  );
  if (found && user) return { publisher: found, owner: user.username };
  return {
    refused: new TrustRefused(
      403,
      'claims',
      `no trusted publisher of ${asked} matches this token's claims (${describeClaims(claims)})`,
    ),
  };
}

/** The claims a refusal names, so that the maker of the workflow sees what it carried. */
function describeClaims(claims: Record<string, unknown>): string {
  const shown = ['repository', 'ref', 'environment', 'workflow_ref', 'project_path', 'sub'];
  const parts = shown
    .filter((key) => typeof claims[key] === 'string')
    .map((key) => `${key}=${String(claims[key]).slice(0, 200)}`);
  return parts.length > 0 ? parts.join(', ') : 'none of repository, ref, environment, sub';
}
