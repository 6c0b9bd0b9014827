/**
 * The hub's `--config` JSON takes only the keys it knows: a misspelt one (a cap, a limit, a
 * provider's field) is refused at start, named with the one it may have meant and the keys
 * taken there, where it was ignored and its default held unseen.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readHubConfig } from '../../packages/hub/src/config.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './helpers.js';

function configOf(content: unknown): string {
  const file = join(tempDir(), 'hub.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

const GITHUB = { type: 'github', clientId: 'id', clientSecret: 'secret' };

describe('the hub configuration', () => {
  it.each([
    [
      { maxTokenPerUser: 5 },
      'the hub configuration has no setting "maxTokenPerUser" (did you mean "maxTokensPerUser"?): it takes providers, fetchHosts,',
    ],
    [{ trustedIssuer: [] }, '(did you mean "trustedIssuers"?)'],
    [{ colour: 'red' }, 'the hub configuration has no setting "colour": it takes providers,'],
    [
      { limits: { resource: 10 } },
      'limits has no setting "resource" (did you mean "resources"?): it takes resources, specBytes,',
    ],
    [{ pipeline: { worker: 2 } }, 'pipeline has no setting "worker" (did you mean "workers"?)'],
    [
      { metrics: { enable: true } },
      'metrics has no setting "enable" (did you mean "enabled"?): it takes enabled, token',
    ],
    [
      { providers: { gh: { ...GITHUB, issuer: 'https://x' } } },
      'providers.gh has no setting "issuer": it takes type, clientId, clientSecret, url, apiUrl',
    ],
    [
      { providers: { sso: { ...GITHUB, type: 'oidc', issuer: 'https://x', scope: ['a'] } } },
      'providers.sso has no setting "scope" (did you mean "scopes"?)',
    ],
  ])('refuses %j, naming the key and what it takes', (content, message) => {
    const file = configOf(content);
    expect(() => readHubConfig(file, {})).toThrow(ConfigError);
    expect(() => readHubConfig(file, {})).toThrow(message);
  });

  it('takes every key it documents', () => {
    const file = configOf({
      providers: { gh: { ...GITHUB, url: 'https://github.com', apiUrl: 'https://api.github.com' } },
      fetchHosts: [],
      limits: {
        resources: 10,
        specBytes: 1000,
        processingMemoryMb: 64,
        rowChars: 10,
        columns: 5,
        processingSeconds: 9,
      },
      publicUrl: 'https://data.example.org',
      devSignIn: false,
      database: 'postgres://hub@db/hub',
      storage: '/srv/hub',
      pipeline: { leaseSeconds: 60, pollSeconds: 1, workers: 2 },
      derivedCacheMb: 10,
      maxTokenDays: 30,
      maxOrganisationsPerUser: 3,
      maxTokensPerUser: 4,
      maxDatasetsPerToken: 5,
      logFormat: 'json',
      metrics: { enabled: true, token: 'secret' },
      trustedIssuers: ['https://token.actions.githubusercontent.com'],
    });
    expect(readHubConfig(file, {}).caps).toMatchObject({ maxTokensPerUser: 4 });
  });

  it('is refused at the start of data serve as a usage error, exit 2', async () => {
    const dataDir = tempDir();
    const run = await runCli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--config',
      configOf({ maxTokenPerUser: 5 }),
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'the hub configuration has no setting "maxTokenPerUser" (did you mean "maxTokensPerUser"?)',
    );
  });
});
