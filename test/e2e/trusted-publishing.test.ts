/**
 * Trusted publishing end to end: the real `data` against a real `data serve` whose
 * configuration trusts an OpenID issuer on loopback (test/helpers/id-issuer.ts), in a "CI
 * job" whose ID token comes from a stand-in for GitHub Actions' token endpoint. No token is
 * stored anywhere: the right repository and branch publish; another branch is refused.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  gitHubClaims,
  startActionsTokenEndpoint,
  startIdIssuer,
  type IdIssuer,
} from '../helpers/id-issuer.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { browserLogin, CITIES_DIR, runData } from '../hub/helpers.js';

const REPO = 'ada/world-cities';

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

let issuer: IdIssuer;
let hub: ServeProcess;
let hubErr = '';
beforeAll(async () => {
  issuer = await startIdIssuer();
  const folder = mkdtempSync(join(tmpdir(), 'data-trusted-'));
  const config = join(folder, 'hub.json');
  writeFileSync(config, JSON.stringify({ trustedIssuers: [issuer.url] }));
  hub = await startServe(['--data-dir', join(folder, 'hub'), '--config', config]);
  hub.child.stderr.on('data', (chunk: Buffer) => (hubErr += chunk.toString()));
});
afterAll(async () => {
  await hub?.stop();
  await issuer?.close();
});

/** `data` in a CI job: no stored token, no DATA_TOKEN, the job's ID token endpoint. */
async function inJob(args: string[], ref: string) {
  const endpoint = await startActionsTokenEndpoint(issuer, gitHubClaims(REPO, ref));
  try {
    const result = await runData(args, {
      env: {
        DATA_API: hub.url,
        DATA_TOKEN: '',
        DATA_ID_TOKEN: '',
        ACTIONS_ID_TOKEN_REQUEST_URL: endpoint.requestUrl,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: endpoint.requestToken,
      },
    });
    return { ...result, requests: endpoint.requests };
  } finally {
    await endpoint.close();
  }
}

describe('data publish in a CI job, as a trusted publisher', () => {
  it('publishes from the trusted repository and branch, and is refused from another branch', async () => {
    const ada = await browserLogin(hub.url, 'ada');
    const add = [
      'publisher',
      'add',
      'ada/world-cities',
      '--issuer',
      issuer.url,
      '--claim',
      `repository=${REPO}`,
      '--claim',
      'ref=refs/heads/main',
    ];
    const added = await runData(add, { env: { DATA_API: hub.url, DATA_TOKEN: ada } });
    expect(added.code, added.err).toBe(0);
    const id = added.out.split('\t')[0] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    // The same workflow again: the hub keeps the one publisher, and data says so, exit 0.
    const again = await runData(add, { env: { DATA_API: hub.url, DATA_TOKEN: ada } });
    expect(again.code, again.err).toBe(0);
    expect(again.out.split('\t')[0]).toBe(id);
    expect(again.err).toContain(`ada/world-cities already has this trusted publisher (${id})`);
    const listed = await runData(['publisher', 'list', 'ada/world-cities', '--json'], {
      env: { DATA_API: hub.url, DATA_TOKEN: ada },
    });
    expect(JSON.parse(listed.out)).toMatchObject([{ id, issuer: issuer.url }]);

    const published = await inJob(
      ['--json', 'publish', CITIES_DIR, '--owner', 'ada'],
      'refs/heads/main',
    );
    expect(published.code, published.err).toBe(0);
    expect(JSON.parse(published.out)).toMatchObject({
      owner: 'ada',
      dataset: 'world-cities',
      state: 'SUCCEEDED',
    });
    expect(published.requests).toEqual([{ audience: hub.url, authorized: true }]);
    expect(published.err).toContain('publishing ada/world-cities as its trusted publisher');
    expect((await fetch(`${hub.url}/ada/world-cities/datapackage.json`)).status).toBe(200);
    expect(hubErr).toContain('trusted publishing: a token of');
    expect(hubErr).toContain(`"repository":"${REPO}"`);

    const refused = await inJob(
      ['publish', CITIES_DIR, '--force', '--owner', 'ada'],
      'refs/heads/dev',
    );
    expect(refused.code).toBe(4);
    expect(refused.err).toContain(
      `refused the CI job's ID token: no trusted publisher of ada/world-cities matches this token's claims (repository=${REPO}, ref=refs/heads/dev`,
    );
    expect(refused.out).toBe('');
    // Without its owner, no ID token is asked for: the hub would not know whose publishers.
    const ownerless = await inJob(['publish', CITIES_DIR, '--force'], 'refs/heads/main');
    expect(ownerless.code).toBe(2);
    expect(ownerless.err).toContain("trusted publishing needs the dataset's owner");
    expect(ownerless.requests).toEqual([]);
  });

  it("publishes with the GitHub Action's publish mode (scripts/ci/publish.sh)", async () => {
    const endpoint = await startActionsTokenEndpoint(issuer, gitHubClaims(REPO, 'refs/heads/main'));
    const job = {
      ACTIONS_ID_TOKEN_REQUEST_URL: endpoint.requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: endpoint.requestToken,
      DATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'data-job-')),
      DATA_KEYCHAIN: '0',
      DATA_TOKEN: '',
      NO_COLOR: '1',
    };
    const script = join(import.meta.dirname, '../../scripts/ci/publish.sh');
    try {
      const published = await run('bash', [script], {
        ...job,
        INPUT_PATH: CITIES_DIR,
        INPUT_HUB: hub.url,
        INPUT_DATASET: 'ada/world-cities',
        INPUT_FINDABILITY: 'unlisted',
      });
      expect(published.code, published.err).toBe(0);
      expect(published.err).toContain('publishing ada/world-cities as its trusted publisher');
      const noHub = await run('bash', [script], { ...job, INPUT_PATH: CITIES_DIR });
      expect(noHub.code).toBe(2);
      expect(noHub.err).toContain('::error title=data publish::hub is needed');
      const noDataset = await run('bash', [script], {
        ...job,
        INPUT_PATH: CITIES_DIR,
        INPUT_HUB: hub.url,
      });
      expect(noDataset.code).toBe(2);
      expect(noDataset.err).toContain('::error title=data publish::dataset is needed');
      const noPermission = await run('bash', [script], {
        ...job,
        ACTIONS_ID_TOKEN_REQUEST_URL: '',
        INPUT_HUB: hub.url,
      });
      expect(noPermission.code).toBe(2);
      expect(noPermission.err).toContain('permissions: id-token: write');
    } finally {
      await endpoint.close();
    }
  });

  it('is refused by data serve for an issuer in clear off loopback', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'data-trusted-'));
    const config = join(folder, 'hub.json');
    writeFileSync(config, JSON.stringify({ trustedIssuers: ['http://issuer.example.org'] }));
    const started = await runData([
      'serve',
      '--port',
      '0',
      '--data-dir',
      folder,
      '--config',
      config,
    ]);
    expect(started.code).toBe(2);
    expect(started.err).toContain('trustedIssuers: http://issuer.example.org is http');
  });
});
