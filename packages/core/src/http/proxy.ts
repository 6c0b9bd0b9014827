/** The proxies of the environment, as curl and most tools read them. */
export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY (the lower-case names first, as curl reads them), or
 * undefined when no proxy is set. HTTPS_PROXY defaults to HTTP_PROXY.
 */
export function proxySettings(env: Record<string, string | undefined>): ProxySettings | undefined {
  const read = (name: string) => env[name.toLowerCase()] || env[name] || '';
  const httpProxy = read('HTTP_PROXY');
  const httpsProxy = read('HTTPS_PROXY') || httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy: read('NO_PROXY') };
}
