import * as client from 'openid-client';
import { usernameFrom } from '../../names.js';
import { SignInRefused, type Attempt, type Provider } from './types.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
}

/** Long enough that asking for `auth_time` does not make the provider ask for a password. */
const AUTH_TIME_MAX_AGE = 30 * 86_400;

/** Loopback issuers may use plain http (a provider run for development or tests). */
function insecureAllowed(issuer: URL): boolean {
  return (
    issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname)
  );
}

/**
 * An OpenID Connect provider: discovery from the issuer, authorization code flow with
 * PKCE, `state` and `nonce`, and the ID token verified by openid-client.
 */
export function oidcProvider(name: string, settings: OidcSettings): Provider {
  let configuration: Promise<client.Configuration> | undefined;
  const configured = (): Promise<client.Configuration> => {
    const issuer = new URL(settings.issuer);
    configuration ??= client
      .discovery(
        issuer,
        settings.clientId,
        settings.clientSecret,
        undefined,
        insecureAllowed(issuer)
          ? {
              execute: [
                // Plain http only for a provider on this machine (development, tests).
                // eslint-disable-next-line @typescript-eslint/no-deprecated
                client.allowInsecureRequests,
              ],
            }
          : {},
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };
  return {
    name,
    async authorizationUrl(
      redirectUri: string,
      attempt: Attempt,
      forProgram: boolean,
    ): Promise<URL> {
      return client.buildAuthorizationUrl(await configured(), {
        redirect_uri: redirectUri,
        scope: (settings.scopes ?? ['openid', 'profile', 'email']).join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
        code_challenge_method: 'S256',
        state: attempt.state,
        nonce: attempt.nonce,
        // With max_age the provider must say when the user signed in (auth_time).
        ...(forProgram ? { max_age: String(AUTH_TIME_MAX_AGE) } : {}),
      });
    },
    async identify(redirectUri: string, callback: URL, attempt: Attempt) {
      const config = await configured();
      const tokens = await client.authorizationCodeGrant(
        config,
        callback,
        {
          pkceCodeVerifier: attempt.verifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: redirectUri },
      );
      const verified = tokens.claims();
      if (!verified) throw new SignInRefused('the provider sent no ID token');
      // Many providers put only `sub` in the ID token and the profile at userinfo, which is
      // checked to speak of the same subject.
      const profile = config.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(config, tokens.access_token, verified.sub)
        : {};
      const claims: Record<string, unknown> = { ...profile, ...verified };
      const text = (value: unknown): string => (typeof value === 'string' ? value : '');
      const email = text(claims.email);
      return {
        identity: {
          provider: name,
          subject: verified.sub,
          username: usernameFrom(text(claims.preferred_username) || text(claims.nickname) || email),
          email,
          name: text(claims.name) || text(claims.preferred_username),
        },
        authenticatedAt: typeof verified.auth_time === 'number' ? verified.auth_time : undefined,
      };
    },
  };
}
