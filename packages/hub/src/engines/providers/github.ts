import * as client from 'openid-client';
import { usernameFrom } from '../../names.js';
import { SignInRefused, type Attempt, type Provider } from './types.js';

export interface GitHubSettings {
  clientId: string;
  clientSecret: string;
  /** GitHub Enterprise Server, or a stand-in: where the OAuth pages and the API live. */
  url?: string;
  apiUrl?: string;
}

function loopback(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * GitHub's OAuth apps (GitHub is not an OpenID provider): the authorization code flow with
 * `state` and PKCE through openid-client, then the user from GitHub's API. The user is
 * GitHub's numeric id, which stays when the login name changes.
 */
export function gitHubProvider(name: string, settings: GitHubSettings): Provider {
  const site = new URL(settings.url ?? 'https://github.com');
  const api = new URL(settings.apiUrl ?? 'https://api.github.com');
  const config = new client.Configuration(
    {
      issuer: site.origin,
      authorization_endpoint: new URL('/login/oauth/authorize', site).href,
      token_endpoint: new URL('/login/oauth/access_token', site).href,
    },
    settings.clientId,
    settings.clientSecret,
  );
  if (loopback(site) || loopback(api))
    // Plain http only for a provider on this machine (development, tests).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    client.allowInsecureRequests(config);
  return {
    name,
    async authorizationUrl(redirectUri: string, attempt: Attempt): Promise<URL> {
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'read:user user:email',
        state: attempt.state,
        code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
        code_challenge_method: 'S256',
      });
    },
    async identify(redirectUri: string, callback: URL, attempt: Attempt) {
      const tokens = await client.authorizationCodeGrant(
        config,
        callback,
        { pkceCodeVerifier: attempt.verifier, expectedState: attempt.state },
        { redirect_uri: redirectUri },
      );
      const answer = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL('/user', api),
        'GET',
        undefined,
        new Headers({ Accept: 'application/vnd.github+json' }),
      );
      if (!answer.ok) throw new SignInRefused(`GitHub's API answered ${String(answer.status)}`);
      const user = (await answer.json()) as {
        id?: unknown;
        login?: unknown;
        name?: unknown;
        email?: unknown;
      };
      if (typeof user.id !== 'number' || typeof user.login !== 'string')
        throw new SignInRefused("GitHub's API did not say who signed in");
      return {
        identity: {
          provider: name,
          subject: String(user.id),
          username: usernameFrom(user.login),
          email: typeof user.email === 'string' ? user.email : '',
          name: typeof user.name === 'string' ? user.name : user.login,
        },
        // GitHub does not say whether it asked the user or answered from its own session.
        authenticatedAt: undefined,
      };
    },
  };
}
