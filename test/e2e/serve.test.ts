import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserLogin, EXAMPLES, publish, waitForState } from '../hub/helpers.js';
import { HAS_CHROMIUM, launchChromium } from '../helpers/chromium.js';

const ROOT = join(import.meta.dirname, '../..');
const SCREENSHOTS = join(ROOT, 'test-output');

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  dataDir: string;
}

async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'data-serve-'));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/data'), 'serve', '--port', '0', '--data-dir', dataDir, ...args],
    { env: { ...process.env, NO_COLOR: '1', ...env } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (found?.[1]) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`data serve exited with ${String(code)}`)));
  });
  return { child, url, dataDir };
}

function stop(served: Served): Promise<number | null> {
  return new Promise((resolve) => {
    served.child.on('exit', (code) => resolve(code));
    served.child.kill('SIGINT');
  });
}

describe('data serve refusing to start', () => {
  const running = new Set<ChildProcessWithoutNullStreams>();
  // A serve that did not refuse is stopped even when its test failed on the time-out.
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  });

  function serveWith(args: string[]): Promise<{ code: number | null; err: string }> {
    // In a folder of its own: a serve without --data-dir makes ./data-hub where it runs.
    const cwd = mkdtempSync(join(tmpdir(), 'data-serve-refused-'));
    const child = spawn(process.execPath, [join(ROOT, 'bin/data'), 'serve', ...args], {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: '1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    });
    running.add(child);
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return new Promise((resolve) =>
      child.on('close', (code) => {
        running.delete(child);
        resolve({ code, err });
      }),
    );
  }

  it('says a port is taken, with the way out, and exits 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    const dataDir = mkdtempSync(join(tmpdir(), 'data-serve-'));
    try {
      const run = await serveWith(['--port', port, '--data-dir', dataDir]);
      expect(run.code).toBe(2);
      expect(run.err).toContain(`something already listens on 127.0.0.1:${port}`);
      expect(run.err).toContain('--port 0');
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    [['--port', '70000'], 'expected a port from 0 to 65535'],
    [['--port', '-1'], 'expected a port from 0 to 65535'],
    [['--host', 'no-such-host.invalid', '--dev-sign-in', '--port', '0'], 'does not resolve'],
    [['--data-dir', '/proc/data-hub-nope', '--port', '0'], 'the data folder cannot be used'],
    [['--data-dir', '/dev/null', '--port', '0'], 'the data folder cannot be used'],
    [['--database', 'postgres://127.0.0.1:1/hub', '--port', '0'], 'the database cannot be used'],
    [['--database', '/proc/no-hub/hub.sqlite', '--port', '0'], 'the database cannot be used'],
    [['--database', '/dev', '--port', '0'], 'the database cannot be used'],
    [['--storage', 'gs://bucket', '--port', '0'], 'unknown storage "gs://bucket"'],
    [['--storage', 's3://key:hunter2@bucket', '--port', '0'], 'put no credentials'],
    [['--storage', 's3://bucket?colour=red', '--port', '0'], 'unknown storage option "colour"'],
    [['--storage', 's3://bucket?endpoint=ftp://x', '--port', '0'], 'not an http(s) address'],
    [
      ['--storage', 's3://bucket?endpoint=http://127.0.0.1:1&path_style=true', '--port', '0'],
      'the bucket s3://bucket/ cannot be reached',
    ],
    [['--storage', 'file://elsewhere/x', '--port', '0'], 'not a file:// address of this machine'],
    [['--storage', '/proc/no-hub', '--port', '0'], 'the storage folder cannot be used'],
  ])('refuses %j in plain words, with exit 2', async (args, message) => {
    const run = await serveWith(args);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    // Commander's own refusals of a port have no hint: the message is the whole story.
    if (!message.startsWith('expected a port')) expect(run.err).toContain('hint: ');
    expect(run.err).not.toContain('bug');
    expect(run.err).not.toContain('hunter2');
  });
});

describe('data serve where it keeps things', () => {
  it('takes --database and --storage first, then DATA_HUB_DATABASE and DATA_HUB_STORAGE, then the configuration file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'data-serve-where-'));
    const config = join(root, 'hub.json');
    writeFileSync(
      config,
      JSON.stringify({
        database: join(root, 'config.sqlite'),
        storage: join(root, 'config-files'),
      }),
    );
    const env = {
      DATA_HUB_DATABASE: join(root, 'env.sqlite'),
      DATA_HUB_STORAGE: join(root, 'env-files'),
    };
    try {
      for (const [args, environment, database, storage] of [
        [['--config', config], {}, 'config.sqlite', 'config-files'],
        [['--config', config], env, 'env.sqlite', 'env-files'],
        [
          [
            '--config',
            config,
            '--database',
            join(root, 'flag.sqlite'),
            '--storage',
            `file://${join(root, 'flag-files')}`,
          ],
          env,
          'flag.sqlite',
          'flag-files',
        ],
      ] as const) {
        const served = await serve([...args], environment);
        try {
          expect(existsSync(join(root, database))).toBe(true);
          expect(readdirSync(join(root, storage)).sort()).toEqual(['objects', 'packages']);
          expect(existsSync(join(served.dataDir, 'hub.sqlite'))).toBe(false);
          expect(existsSync(join(served.dataDir, 'objects'))).toBe(false);
        } finally {
          await stop(served);
          rmSync(served.dataDir, { recursive: true, force: true });
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('data serve', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve();
  });
  afterAll(async () => {
    if (served.child.exitCode === null) await stop(served);
    rmSync(served.dataDir, { recursive: true, force: true });
  });

  it('binds to loopback and publishes a package end to end', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const jwt = await browserLogin(served.url);
    const { flowId } = await publish(served.url, jwt, join(EXAMPLES, 'cities'));
    expect((await waitForState(served.url, flowId)).state).toBe('SUCCEEDED');
    const csv = Buffer.from(
      await (await fetch(`${served.url}/ada/world-cities/r/0.csv`)).arrayBuffer(),
    );
    expect(csv.equals(readFileSync(join(EXAMPLES, 'cities/data/countries.csv')))).toBe(true);
  });

  describe.skipIf(!HAS_CHROMIUM)('in a real browser', () => {
    it('signs in through the form, finds the dataset and shows its page', async () => {
      const browser = await launchChromium();
      let captured = '';
      const listener = createServer((request, response) => {
        // The browser also asks this listener for /favicon.ico: keep the token once it came.
        captured ||= new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('jwt') ?? '';
        response.end('signed in');
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      try {
        const address = listener.address();
        const next = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}/done`;
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        await page.goto(`${served.url}/auth/login/local?next=${encodeURIComponent(next)}`);
        await page.fill('input[name=username]', 'grace');
        await page.fill('input[name=email]', 'grace@example.org');
        await Promise.all([page.waitForURL(/\/done/), page.click('button[type=submit]')]);
        expect(captured.split('.')).toHaveLength(3);

        await page.goto(served.url);
        await page.fill('input[name=q]', 'cities');
        await Promise.all([page.waitForURL(/q=cities/), page.press('input[name=q]', 'Enter')]);
        await page.click('text=World cities and their countries');
        await page.waitForURL(/\/ada\/world-cities$/);
        expect(await page.textContent('h1')).toBe('World cities and their countries');
        expect(await page.locator('table').nth(1).locator('tbody tr').count()).toBe(5);
        expect(await page.textContent('.badge.ok')).toBe('valid');
        mkdirSync(SCREENSHOTS, { recursive: true });
        const file = join(SCREENSHOTS, 'hub-dataset-page.png');
        await page.screenshot({ path: file, fullPage: true });
        expect(readFileSync(file).length).toBeGreaterThan(10_000);
      } finally {
        listener.close();
        await browser.close();
      }
    }, 60_000);
  });

  it('stops cleanly on SIGINT', async () => {
    expect(await stop(served)).toBe(0);
  });
});
