/**
 * The checks of an ID token that trusted publishing trades (services/trusted-publishing.ts),
 * against an issuer on loopback that serves its discovery document and keys.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimsMatch,
  claimsProblem,
  IdTokenVerifier,
  issuerProblem,
  TrustRefused,
} from '../../packages/hub/src/services/trusted-publishing.js';
import { gitHubClaims, startIdIssuer, type IdIssuer } from '../helpers/id-issuer.js';

const HUB = 'https://hub.example.org';

let issuer: IdIssuer;
beforeAll(async () => {
  issuer = await startIdIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

/** The refusal a verification ends in: its status, its check and its message. */
async function refusal(verifier: IdTokenVerifier, token: string, audience = HUB) {
  const error: unknown = await verifier.verify(token, audience).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TrustRefused);
  const { status, check, message } = error as TrustRefused;
  expect(message).not.toContain(token);
  return { status, check, message };
}

describe('an ID token', () => {
  it('of a trusted issuer, for this hub, is verified, and its issuer is discovered once', async () => {
    const verifier = new IdTokenVerifier({ issuers: [issuer.url] });
    const before = { ...issuer.reads };
    const token = await issuer.sign(gitHubClaims('octo/data'), { audience: HUB });
    const verified = await verifier.verify(token, HUB);
    expect(verified.issuer).toBe(issuer.url);
    expect(verified.claims).toMatchObject({ repository: 'octo/data', ref: 'refs/heads/main' });
    await verifier.verify(await issuer.sign(gitHubClaims('octo/data'), { audience: HUB }), HUB);
    expect(issuer.reads.discovery - before.discovery).toBe(1);
    expect(issuer.reads.keys - before.keys).toBe(1);
  });

  it('is refused, naming the check, when anything is wrong with it', async () => {
    const verifier = new IdTokenVerifier({ issuers: [issuer.url] });
    const claims = gitHubClaims('octo/data');
    expect(await refusal(verifier, 'not-a-jwt')).toMatchObject({ status: 400, check: 'token' });
    const audience = await refusal(
      verifier,
      await issuer.sign(claims, { audience: 'https://other.example' }),
    );
    expect(audience).toMatchObject({ status: 401, check: 'aud' });
    expect(audience.message).toContain(`ask for one for ${HUB}`);
    expect(
      await refusal(verifier, await issuer.sign(claims, { audience: HUB, expiresIn: -120 })),
    ).toMatchObject({ status: 401, check: 'exp' });
    expect(
      await refusal(verifier, await issuer.sign(claims, { audience: HUB, notBefore: 600 })),
    ).toMatchObject({ status: 401, check: 'nbf' });
    expect(
      await refusal(verifier, await issuer.sign(claims, { audience: HUB, otherKey: true })),
    ).toMatchObject({ status: 401, check: 'signature' });
    const untrusted = new IdTokenVerifier({
      issuers: ['https://token.actions.githubusercontent.com'],
    });
    const distrusted = await refusal(untrusted, await issuer.sign(claims, { audience: HUB }));
    expect(distrusted).toMatchObject({ status: 401, check: 'issuer' });
    expect(distrusted.message).toContain(`does not trust the issuer ${issuer.url}`);
  });

  it('that claims a trusted issuer it was not signed by is refused on its signature', async () => {
    // Signed by the test issuer's key but naming another trusted issuer on loopback, whose
    // keys are not the signer's.
    const impostor = await startIdIssuer();
    try {
      const verifier = new IdTokenVerifier({ issuers: [issuer.url, impostor.url] });
      const token = await issuer.sign(gitHubClaims('octo/data'), {
        audience: HUB,
        issuer: impostor.url,
      });
      expect(await refusal(verifier, token)).toMatchObject({ status: 401, check: 'signature' });
    } finally {
      await impostor.close();
    }
  });

  it('of an https issuer whose discovery names keys in clear on loopback is refused as discovery', async () => {
    const remote = 'https://issuer.example.org';
    // The remote issuer's discovery points at keys on the hub's own machine (the test issuer's).
    const fetch: typeof globalThis.fetch = (input, init) =>
      (input instanceof Request ? input.url : input.toString()) ===
      `${remote}/.well-known/openid-configuration`
        ? Promise.resolve(
            Response.json({ issuer: remote, jwks_uri: `${issuer.url}/.well-known/jwks` }),
          )
        : globalThis.fetch(input, init);
    const verifier = new IdTokenVerifier({ issuers: [remote], fetch });
    const token = await issuer.sign(gitHubClaims('octo/data'), { audience: HUB, issuer: remote });
    const refused = await refusal(verifier, token);
    expect(refused).toMatchObject({ status: 502, check: 'discovery' });
    expect(refused.message).toContain('only from an issuer on loopback');
  });

  it('of an issuer that cannot be reached, or answers without end, is refused as discovery', async () => {
    const endless = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const write = (): void => {
        while (response.write(chunk));
        response.once('drain', write);
      };
      write();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const endlessUrl = `http://127.0.0.1:${String((endless.address() as AddressInfo).port)}`;
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const goneUrl = `http://127.0.0.1:${String((gone.address() as AddressInfo).port)}`;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    try {
      const verifier = new IdTokenVerifier({ issuers: [endlessUrl, goneUrl] });
      for (const named of [endlessUrl, goneUrl]) {
        const token = await issuer.sign(gitHubClaims('octo/data'), {
          audience: HUB,
          issuer: named,
        });
        expect(await refusal(verifier, token)).toMatchObject({ status: 502, check: 'discovery' });
      }
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((resolve) => endless.close(() => resolve()));
    }
  });
});

describe('a publisher', () => {
  it("matches a token whose claims equal every one it requires, and no other's", () => {
    const claims = gitHubClaims('octo/data');
    expect(claimsMatch({ repository: 'octo/data' }, claims)).toBe(true);
    expect(claimsMatch({ repository: 'octo/data', ref: 'refs/heads/main' }, claims)).toBe(true);
    expect(claimsMatch({ repository: 'octo/other' }, claims)).toBe(false);
    expect(claimsMatch({ repository: 'octo/data', ref: 'refs/heads/dev' }, claims)).toBe(false);
    expect(claimsMatch({ environment: 'production' }, claims)).toBe(false);
    expect(claimsMatch({ repository: 'OCTO/DATA' }, claims)).toBe(false);
    expect(claimsMatch({}, claims)).toBe(false);
    expect(claimsMatch({ run_attempt: '1' }, { run_attempt: 1 })).toBe(true);
  });

  it('names at least one claim, none of those that change with every token', () => {
    expect(claimsProblem({ repository: 'octo/data' })).toBeUndefined();
    expect(claimsProblem({})).toMatch(/at least one claim/);
    expect(claimsProblem({ exp: '1' })).toMatch(/changes with every token/);
    expect(claimsProblem({ repository: 1 })).toMatch(/must be a text/);
    expect(claimsProblem({ 'a b': 'x' })).toMatch(/not a claim name/);
    expect(claimsProblem(['repository'])).toMatch(/an object/);
  });

  it('names a claim of the project, not only those every project of the issuer carries', () => {
    for (const shared of [
      { ref: 'refs/heads/main' },
      { environment: 'production' },
      { ref_type: 'branch' },
      { ref: 'main', ref_type: 'branch', environment: 'production' },
    ])
      expect(claimsProblem(shared), JSON.stringify(shared)).toMatch(/claim of the project/);
    for (const named of [
      { sub: 'repo:octo/data:ref:refs/heads/main' },
      { repository_id: '42', ref: 'refs/heads/main' },
      { repository_owner: 'octo', environment: 'production' },
      { project_path: 'ada/prices', ref: 'main', ref_type: 'branch' },
      { namespace_id: '7' },
    ])
      expect(claimsProblem(named), JSON.stringify(named)).toBeUndefined();
  });
});

describe('an issuer the operator names', () => {
  it('is https, or http only on loopback', () => {
    expect(issuerProblem('https://token.actions.githubusercontent.com')).toBeUndefined();
    expect(issuerProblem('https://gitlab.example.org')).toBeUndefined();
    expect(issuerProblem('http://127.0.0.1:9000')).toBeUndefined();
    expect(issuerProblem('http://localhost:9000')).toBeUndefined();
    expect(issuerProblem('http://[::1]:9000')).toBeUndefined();
    expect(issuerProblem('http://issuer.example.org')).toMatch(/only on loopback/);
    expect(issuerProblem('http://127.0.0.1.example.org')).toMatch(/only on loopback/);
    expect(issuerProblem('ftp://issuer.example.org')).toMatch(/not an https URL/);
    expect(issuerProblem('https://issuer.example.org/?a=b')).toMatch(/query/);
    expect(issuerProblem('issuer')).toMatch(/not a URL/);
  });
});
