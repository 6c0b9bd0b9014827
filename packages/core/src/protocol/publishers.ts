/**
 * Trusted publishing (ours, `/api/publishers/…` and `POST /auth/trusted`): which CI
 * workflows may publish a dataset, and the trade of a workflow's OpenID Connect ID token
 * for a short-lived hub token that may publish that one dataset.
 */

/** A trusted publisher of a dataset, as `GET /api/publishers/:owner/:dataset` lists it. */
export interface PublisherRecord {
  /** What `DELETE /api/publishers/:owner/:dataset/:id` names. */
  id: string;
  /** `owner/dataset`, by the owner's name. */
  dataset: string;
  /** The issuer of the ID tokens, exactly as their `iss` says it. */
  issuer: string;
  /** Every claim a token must carry, with that very value. */
  claims: Record<string, string>;
  /** ISO 8601. */
  created: string;
  /** The name of the user who added it; null when that user is gone. */
  created_by: string | null;
}

/** `POST /api/publishers/:owner/:dataset`'s body. */
export interface PublisherRequest {
  issuer: string;
  claims: Record<string, string>;
}

/** `POST /auth/trusted`'s body: the ID token, and the dataset it should publish (`owner/dataset`). */
export interface TrustedRequest {
  token: string;
  dataset?: string;
}

/** `POST /auth/trusted`'s answer: a hub token that may publish one dataset, until `expires`. */
export interface TrustedAnswer {
  token: string;
  /** `owner/dataset`, by the owner's name. */
  dataset: string;
  /** ISO 8601. */
  expires: string;
}

/** The checks an ID token may fail at `POST /auth/trusted`, named in its refusal (`check`). */
export const TRUST_CHECKS = [
  'token',
  'issuer',
  'discovery',
  'signature',
  'aud',
  'exp',
  'nbf',
  'claims',
  'dataset',
] as const;
export type TrustCheck = (typeof TRUST_CHECKS)[number];

/** A refusal of `POST /auth/trusted`: why, and which check failed. */
export interface TrustRefusal {
  error: string;
  check: TrustCheck;
}

const isText = (value: unknown): value is string => typeof value === 'string';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isPublisherRecord(value: unknown): value is PublisherRecord {
  if (!isRecord(value)) return false;
  return (
    isText(value.id) &&
    isText(value.dataset) &&
    isText(value.issuer) &&
    isRecord(value.claims) &&
    Object.values(value.claims).every(isText) &&
    isText(value.created) &&
    (value.created_by === null || isText(value.created_by))
  );
}

export function isTrustedAnswer(value: unknown): value is TrustedAnswer {
  return isRecord(value) && isText(value.token) && isText(value.dataset) && isText(value.expires);
}

export function isTrustRefusal(value: unknown): value is TrustRefusal {
  return isRecord(value) && isText(value.error) && TRUST_CHECKS.includes(value.check as TrustCheck);
}

/**
 * A claim given as `KEY=VALUE` (`data publisher add --claim`): split at the first `=`;
 * undefined when there is none, or the key or the value is empty.
 */
export function parseClaim(text: string): [string, string] | undefined {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) return undefined;
  return [text.slice(0, at), text.slice(at + 1)];
}

/** A claim name a publisher may require: letters, digits, `_`, `-`, `.`, `:`. */
export const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Claims whose values change on every run, which no publisher could sensibly require. */
const CHANGING_CLAIMS = new Set(['exp', 'iat', 'nbf', 'jti', 'aud', 'iss']);

/**
 * Claims that name the project a token's workflow runs for (GitHub's repository and owner,
 * GitLab's project and namespace, any issuer's subject). Every other claim (`ref`,
 * `environment`, `ref_type`…) is carried alike by every project on a shared issuer, so a
 * publisher must require at least one of these.
 */
export const PROJECT_CLAIMS: readonly string[] = [
  'sub',
  'repository',
  'repository_id',
  'repository_owner',
  'repository_owner_id',
  'project_path',
  'project_id',
  'namespace_path',
  'namespace_id',
];

/** Why a publisher's claims cannot be kept as given, or undefined when they can. */
export function claimsProblem(claims: unknown): string | undefined {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims))
    return 'claims must be an object of claim names and values';
  const entries = Object.entries(claims as Record<string, unknown>);
  if (entries.length === 0)
    return 'name at least one claim (e.g. repository): without one any workflow of the issuer could publish';
  if (entries.length > 20) return 'name at most 20 claims';
  for (const [key, value] of entries) {
    if (!CLAIM_NAME.test(key))
      return `"${key.slice(0, 64)}" is not a claim name (letters, digits, "_", "-", ".", ":")`;
    if (CHANGING_CLAIMS.has(key)) return `${key} changes with every token: name another claim`;
    if (typeof value !== 'string' || value === '' || value.length > 300)
      return `the claim ${key} must be a text of 1 to 300 characters`;
  }
  if (!entries.some(([key]) => PROJECT_CLAIMS.includes(key)))
    return `name at least one claim of the project, one of ${PROJECT_CLAIMS.join(', ')}: every project of the issuer carries the others alike`;
  return undefined;
}
