/** The host is not one the operator allowed: the request is never sent. */
export class HostNotAllowed extends Error {
  override readonly name = 'HostNotAllowed';
}

/**
 * A fetch that sends requests only to the listed hosts (a name, or name:port). Wrapped
 * under the redirect follower, it sees every hop: a hub must not fetch what a user names
 * from inside its own network, nor be redirected there.
 */
export function allowedHostsOnly<F extends (url: string, ...rest: never[]) => Promise<unknown>>(
  fetch: F,
  hosts: readonly string[],
): F {
  const allowed = new Set(hosts.map((host) => host.toLowerCase()));
  return ((url: string, ...rest: never[]) => {
    const { host, hostname } = new URL(url);
    if (!allowed.has(host.toLowerCase()) && !allowed.has(hostname.toLowerCase()))
      return Promise.reject(
        new HostNotAllowed(
          `the hub does not fetch from ${hostname} (its operator has not allowed it)`,
        ),
      );
    return fetch(url, ...rest);
  }) as F;
}
