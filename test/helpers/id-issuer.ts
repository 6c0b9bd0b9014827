/**
 * An OpenID Connect issuer of ID tokens for the tests of trusted publishing, on loopback: it
 * serves its discovery document and key set, and signs GitHub-shaped claims with jose as
 * GitHub Actions' issuer does. Beside it, a stand-in for the Actions token endpoint, which
 * hands a job its ID token for the audience it names, to the bearer of the request token.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export interface SignOptions {
  /** The audience (`aud`); the hub's URL in the right case. */
  audience: string;
  /** Seconds from now the token expires at (negative: expired); 300 by default. */
  expiresIn?: number;
  /** Seconds from now the token becomes valid at; a minute ago by default. */
  notBefore?: number;
  /** Signed with another key than the one the issuer publishes (a forged token). */
  otherKey?: boolean;
  /** The `iss` claim, when it should lie about who signed. */
  issuer?: string;
}

export interface IdIssuer {
  /** The issuer, as its tokens' `iss` says it: http://127.0.0.1:<port>. */
  readonly url: string;
  /** How many times its discovery document and its key set were read. */
  readonly reads: { discovery: number; keys: number };
  sign(claims: JWTPayload, options: SignOptions): Promise<string>;
  close(): Promise<void>;
}

/** Claims of a GitHub Actions ID token for a repository's workflow on a ref. */
export function gitHubClaims(
  repository: string,
  ref = 'refs/heads/main',
  more: JWTPayload = {},
): JWTPayload {
  const [owner = ''] = repository.split('/');
  return {
    sub: `repo:${repository}:ref:${ref}`,
    repository,
    repository_owner: owner,
    repository_id: '123456',
    ref,
    ref_type: 'branch',
    workflow: 'publish',
    workflow_ref: `${repository}/.github/workflows/publish.yml@${ref}`,
    event_name: 'push',
    run_id: '42',
    actor: 'octocat',
    ...more,
  };
}

/** Starts an issuer on a loopback port with an RSA key of its own. */
export async function startIdIssuer(): Promise<IdIssuer> {
  const own = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const kid = randomBytes(8).toString('hex');
  const publicJwk = { ...(await exportJWK(own.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const reads = { discovery: 0, keys: 0 };
  let url = '';
  const server = createServer((request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/.well-known/openid-configuration') {
      reads.discovery++;
      return send({
        issuer: url,
        jwks_uri: `${url}/.well-known/jwks`,
        subject_types_supported: ['public'],
        response_types_supported: ['id_token'],
        id_token_signing_alg_values_supported: ['RS256'],
        claims_supported: ['sub', 'aud', 'exp', 'iat', 'iss', 'repository', 'ref'],
      });
    }
    if (request.url === '/.well-known/jwks') {
      reads.keys++;
      return send({ keys: [publicJwk] });
    }
    response.writeHead(404).end();
  });
  url = await listen(server);
  return {
    url,
    reads,
    sign: async (claims, options) => {
      const now = Math.floor(Date.now() / 1000);
      const key: CryptoKey = options.otherKey ? other.privateKey : own.privateKey;
      return await new SignJWT({ ...claims, jti: randomBytes(8).toString('hex') })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? url)
        .setAudience(options.audience)
        .setIssuedAt(now)
        .setNotBefore(now + (options.notBefore ?? -60))
        .setExpirationTime(now + (options.expiresIn ?? 300))
        .sign(key);
    },
    close: () => closeServer(server),
  };
}

export interface ActionsTokenEndpoint {
  /** What a job's ACTIONS_ID_TOKEN_REQUEST_URL is. */
  readonly requestUrl: string;
  /** What a job's ACTIONS_ID_TOKEN_REQUEST_TOKEN is. */
  readonly requestToken: string;
  /** Every request it had: its audience and whether its bearer was right. */
  readonly requests: { audience: string | null; authorized: boolean }[];
  close(): Promise<void>;
}

/**
 * GitHub's endpoint for a job's ID token, as its toolkit calls it: GET the request URL with
 * `&audience=…`, the request token as bearer; the answer is `{"value": "<jwt>"}`, signed by
 * the issuer for that audience with the job's claims. A wrong bearer gets 401.
 */
export async function startActionsTokenEndpoint(
  issuer: IdIssuer,
  claims: JWTPayload,
  sign: Omit<SignOptions, 'audience'> = {},
): Promise<ActionsTokenEndpoint> {
  const requestToken = randomBytes(24).toString('base64url');
  const requests: ActionsTokenEndpoint['requests'] = [];
  const server = createServer((request, response) => {
    const address = new URL(request.url ?? '/', 'http://127.0.0.1');
    const audience = address.searchParams.get('audience');
    const authorized = request.headers.authorization === `Bearer ${requestToken}`;
    requests.push({ audience, authorized });
    if (!authorized || address.pathname !== '/idtoken') {
      response.writeHead(401, { 'Content-Type': 'application/json' });
      return response.end('{"message":"Bad credentials"}');
    }
    void issuer
      .sign(claims, { ...sign, audience: audience ?? 'https://github.com/octo-org' })
      .then((value) => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ count: 1, value }));
      });
  });
  const url = await listen(server);
  return {
    requestUrl: `${url}/idtoken?api-version=2.0`,
    requestToken,
    requests,
    close: () => closeServer(server),
  };
}
