import type { Identity } from '../metadata/types.js';

/** An identity provider configured by the operator. */
export interface Provider {
  readonly name: string;
  /**
   * The address of the provider's sign-in page for this attempt. `forProgram`: the sign-in
   * goes to a program on this computer, so ask the provider to say when the user signed in.
   */
  authorizationUrl(redirectUri: string, attempt: Attempt, forProgram: boolean): Promise<URL>;
  /** Who signed in, from the provider's answer at our callback; throws when it is not valid. */
  identify(redirectUri: string, callback: URL, attempt: Attempt): Promise<SignedIn>;
}

export interface SignedIn {
  identity: Identity;
  /**
   * When the user last proved who they are to the provider (seconds since 1970, OpenID's
   * `auth_time`), when the provider says: a time before the attempt began means the provider
   * signed the user in from a session of its own, without asking.
   */
  authenticatedAt: number | undefined;
}

/** What ties a provider's answer to the sign-in that asked for it. */
export interface Attempt {
  state: string;
  nonce: string;
  verifier: string;
}

/** The answer did not prove who signed in. */
export class SignInRefused extends Error {
  override readonly name = 'SignInRefused';
}
