/**
 * Trusted publishing: a CI job proves which workflow it is with its issuer's OpenID Connect
 * ID token (GitHub Actions, GitLab…), and the hub, which trusts that issuer, trades it for a
 * short-lived token that may publish the one dataset whose publisher the token's claims
 * match. No secret is stored anywhere.
 *
 * This module checks an ID token: the issuer is one the operator trusts, its keys are found
 * by OpenID discovery (cached per issuer), and jose checks the signature, `iss`, `aud`, `exp`
 * and `nbf`. It also says which publisher a verified token's claims match. What it refuses
 * it refuses with the check that failed, never quoting the token.
 */
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  jwtVerify,
  type JWTPayload,
  type RemoteJWKSet,
} from 'jose';
import type { TrustCheck } from '@data/core';

// What a publisher's claims must be is one rule, core's (protocol/publishers.ts), which the
// CLI checks too before it asks: re-exported for this module's users.
export { CLAIM_NAME, claimsProblem, PROJECT_CLAIMS } from '@data/core';

/** The hub will not trade this ID token: the HTTP status, the check that failed and why. */
export class TrustRefused extends Error {
  override readonly name = 'TrustRefused';
  constructor(
    readonly status: 400 | 401 | 403 | 502,
    readonly check: TrustCheck,
    message: string,
  ) {
    super(message);
  }
}

/** Whether a URL's host is this machine: `localhost`, 127.x.x.x or [::1]. */
function onLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why an address cannot be a trusted issuer's (or its keys'), or undefined when it can: an
 * https URL without query or fragment, or http on loopback only (a test's or a developer's
 * issuer: anything else in clear could be answered by whoever sits on the path).
 */
export function issuerProblem(address: string): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return `"${address}" is not a URL`;
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    return `${address} has a query, a fragment or credentials, which an issuer has not`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && onLoopback(url)) return undefined;
  if (url.protocol === 'http:')
    return `${address} is http: an issuer in clear is trusted only on loopback (127.0.0.1, localhost); use https`;
  return `${address} is not an https URL`;
}

/**
 * Why an issuer's key set address cannot be used: it must be https, or http on loopback only
 * when the issuer itself is (an issuer on the internet naming a loopback address would have
 * the hub read keys from whatever listens on the hub's own machine).
 */
function keysProblem(issuer: string, address: string): string | undefined {
  const problem = issuerProblem(address);
  if (problem !== undefined) return problem;
  if (new URL(address).protocol === 'http:' && !issuer.startsWith('http:'))
    return `${address} is http, which is taken only from an issuer on loopback`;
  return undefined;
}

/** Bytes a discovery document or a key set may have: real ones are a few kilobytes. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;
/** How long a request for an issuer's discovery document or keys may take. */
export const ISSUER_TIMEOUT_MS = 5000;
/** How long an issuer's discovery (where its keys are) is kept; the keys jose keeps 10 minutes. */
const DISCOVERY_MS = 60 * 60_000;
/** Seconds of clock difference allowed between the issuer and the hub, on exp and nbf. */
const CLOCK_TOLERANCE_S = 30;
/** The signature algorithms the hub accepts: those of GitHub, GitLab and other OpenID issuers. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384'];

type Fetch = typeof globalThis.fetch;

/** Reads a response's body up to `limit` bytes; past it, throws. */
async function boundedBody(response: Response, limit: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) throw new Error(`the answer is larger than ${String(limit)} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body)
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) {
        await response.body.cancel().catch(() => undefined);
        throw new Error(`the answer is larger than ${String(limit)} bytes`);
      }
      chunks.push(chunk);
    }
  return Buffer.concat(chunks);
}

/**
 * A fetch whose answer is read whole within the byte bound and handed on as a new Response:
 * jose reads the key set from it, and an issuer answering without end cannot fill memory.
 */
function boundedFetch(fetch: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = await boundedBody(response, MAX_DOCUMENT_BYTES);
    return new Response(response.status === 204 ? null : body, {
      status: response.status,
      headers: response.headers,
    });
  };
}

export interface VerifierOptions {
  /** The issuers the operator trusts, each exactly as its tokens' `iss` says it. */
  issuers: readonly string[];
  /** The fetch for discovery and keys (the global one by default). */
  fetch?: Fetch;
  /** The current time in ms, for tests of expiry. */
  now?: () => number;
}

/** A verified ID token: its issuer and its claims. */
export interface VerifiedIdToken {
  issuer: string;
  claims: JWTPayload;
}

/**
 * Checks ID tokens against the issuers the operator trusts: one per hub, keeping each
 * issuer's keys between trades (jose fetches them again when a token names a key it has not
 * seen, at most every 30 seconds).
 */
export class IdTokenVerifier {
  private readonly issuers: ReadonlySet<string>;
  private readonly fetch: Fetch;
  private readonly now: () => number;
  private readonly keySets = new Map<string, { keys: Promise<RemoteJWKSet>; until: number }>();

  constructor(options: VerifierOptions) {
    this.issuers = new Set(options.issuers);
    this.fetch = boundedFetch(options.fetch ?? globalThis.fetch);
    this.now = options.now ?? Date.now;
  }

  /** Whether any issuer is trusted: without one, trusted publishing is off. */
  get enabled(): boolean {
    return this.issuers.size > 0;
  }

  /** The issuers trusted, in the order given. */
  get trusted(): readonly string[] {
    return [...this.issuers];
  }

  /** Verifies an ID token for this audience (the hub's public URL); throws TrustRefused. */
  async verify(token: string, audience: string): Promise<VerifiedIdToken> {
    const issuer = this.issuerOf(token);
    const keys = await this.keysOf(issuer);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'aud'],
      });
      return { issuer, claims: payload };
    } catch (error) {
      throw refusalOf(error, audience);
    }
  }

  /** The issuer a token names, if the hub trusts it (read before any key is fetched). */
  private issuerOf(token: string): string {
    let payload: JWTPayload;
    try {
      payload = decodeJwt(token);
    } catch {
      throw new TrustRefused(400, 'token', 'the ID token is not a JWT');
    }
    const issuer = payload.iss;
    if (typeof issuer !== 'string' || issuer === '')
      throw new TrustRefused(401, 'issuer', 'the ID token names no issuer (iss)');
    if (!this.issuers.has(issuer))
      throw new TrustRefused(
        401,
        'issuer',
        `this hub does not trust the issuer ${issuer.slice(0, 200)} (its trustedIssuers: ${this.trusted.join(', ') || 'none'})`,
      );
    return issuer;
  }

  /** The issuer's key set, found by OpenID discovery and kept for an hour. */
  private keysOf(issuer: string): Promise<RemoteJWKSet> {
    const kept = this.keySets.get(issuer);
    if (kept && kept.until > this.now()) return kept.keys;
    const keys = this.discover(issuer);
    this.keySets.set(issuer, { keys, until: this.now() + DISCOVERY_MS });
    keys.catch(() => this.keySets.delete(issuer));
    return keys;
  }

  private async discover(issuer: string): Promise<RemoteJWKSet> {
    const address = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let document: unknown;
    try {
      const response = await this.fetch(address, {
        signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS),
        redirect: 'manual',
        headers: { accept: 'application/json' },
      });
      if (response.status !== 200) throw new Error(`it answered ${String(response.status)}`);
      document = JSON.parse(await response.text()) as unknown;
    } catch (error) {
      throw new TrustRefused(
        502,
        'discovery',
        `the issuer's OpenID configuration (${address}) cannot be read: ${describe(error)}`,
      );
    }
    const { issuer: named, jwks_uri: jwksUri } = (document ?? {}) as Record<string, unknown>;
    if (named !== issuer)
      throw new TrustRefused(
        502,
        'discovery',
        `the issuer's OpenID configuration names another issuer than ${issuer}`,
      );
    const problem = typeof jwksUri === 'string' ? keysProblem(issuer, jwksUri) : 'it is missing';
    if (problem !== undefined)
      throw new TrustRefused(
        502,
        'discovery',
        `the issuer's key set address (jwks_uri) cannot be used: ${problem}`,
      );
    return createRemoteJWKSet(new URL(jwksUri as string), {
      timeoutDuration: ISSUER_TIMEOUT_MS,
      [customFetch]: this.fetch,
    });
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  if (error instanceof SyntaxError) return 'it is not JSON';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

/** What jose's refusal means for the client: the check that failed and a plain reason. */
function refusalOf(error: unknown, audience: string): TrustRefused {
  if (error instanceof TrustRefused) return error;
  if (error instanceof errors.JWTExpired)
    return new TrustRefused(401, 'exp', 'the ID token has expired (exp): ask for a new one');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return new TrustRefused(
        401,
        'aud',
        `the ID token is for another audience (aud): ask for one for ${audience}`,
      );
    if (error.claim === 'nbf')
      return new TrustRefused(401, 'nbf', 'the ID token is not valid yet (nbf)');
    if (error.claim === 'exp')
      return new TrustRefused(401, 'exp', 'the ID token has no valid expiry (exp)');
    if (error.claim === 'iss')
      return new TrustRefused(401, 'issuer', 'the ID token names another issuer (iss)');
    return new TrustRefused(401, 'token', `the ID token's ${error.claim} claim is not valid`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new TrustRefused(
      401,
      'signature',
      "the ID token's signature does not match the issuer's key",
    );
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return new TrustRefused(
      401,
      'signature',
      'the ID token is signed with a key the issuer does not publish',
    );
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new TrustRefused(
      401,
      'signature',
      'the ID token is signed with an algorithm not accepted',
    );
  if (error instanceof errors.JWKSTimeout)
    return new TrustRefused(502, 'discovery', "the issuer's keys did not come in time");
  if (error instanceof errors.JWKSInvalid || error instanceof errors.JOSENotSupported)
    return new TrustRefused(502, 'discovery', "the issuer's key set cannot be used");
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return new TrustRefused(400, 'token', 'the ID token is not a valid JWT');
  return new TrustRefused(502, 'discovery', `the issuer's keys cannot be read: ${describe(error)}`);
}

/** The claims a publisher requires, each of which a token must carry with that very value. */
export type RequiredClaims = Readonly<Record<string, string>>;

/**
 * Whether a token's claims satisfy every claim a publisher requires: each present, and
 * equal as text (a number or true/false claim as JSON writes it). Objects never match.
 */
export function claimsMatch(required: RequiredClaims, claims: JWTPayload): boolean {
  const keys = Object.keys(required);
  if (keys.length === 0) return false;
  return keys.every((key) => {
    const value = claims[key];
    if (typeof value === 'string') return value === required[key];
    if (typeof value === 'number' || typeof value === 'boolean')
      return String(value) === required[key];
    return false;
  });
}

/**
 * The claims of a token worth logging with a trade: who and what ran, never the token. A
 * claim whose value is an object or a long text is left out.
 */
export function loggableClaims(claims: JWTPayload): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(claims)) {
    if (typeof value === 'string' && value.length <= 300) result[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') result[key] = value;
  }
  return result;
}
