/**
 * The hub on its engines, in one run: the embedded default (SQLite and a folder, one
 * process) next to PostgreSQL and OpenStack Swift (S3) with one and with two hub processes.
 * For each: the time `data publish` takes to publish a 1 GB package (two at once, one
 * through each process, with two), read throughput of that 1 GB resource (redirects to the
 * store followed) and the request rate of a 1 KB resource; and the reads of a plain
 * node:http file server on the same files as the baseline.
 */
import { spawn } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { generatePackage } from './generate.ts';
import { startServer } from './servers.ts';
import { browserLogin, publish, waitForState } from '../test/hub/protocol.ts';
import { postgresBin, startPostgres, type RunningPostgres } from '../test/helpers/postgres.ts';
import {
  startSwift,
  swiftInstalled,
  SWIFT_CREDENTIALS,
  TEST_BUCKET,
  type RunningSwift,
} from '../test/helpers/swift.ts';

const MB = 1024 * 1024;
const BIG_ROWS = 14_500_000;

interface Setup {
  label: string;
  processes: number;
  services: boolean;
}

const SETUPS: Setup[] = [
  { label: 'SQLite + folder, 1 process', processes: 1, services: false },
  { label: 'PostgreSQL + Swift, 1 process', processes: 1, services: true },
  { label: 'PostgreSQL + Swift, 2 processes', processes: 2, services: true },
];

/** GETs a URL to the end, following one redirect (to the store), and counts the bytes. */
function download(url: string, agents: Map<string, Agent>, sockets: number): Promise<number> {
  const origin = new URL(url).origin;
  let agent = agents.get(origin);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: sockets });
    agents.set(origin, agent);
  }
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      const location = response.headers.location;
      if (response.statusCode === 302 && location) {
        response.resume();
        return resolve(download(location, agents, sockets));
      }
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`${url}: ${String(response.statusCode)}`));
      }
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve(bytes));
      response.on('error', reject);
    }).on('error', reject);
  });
}

function closeAll(agents: Map<string, Agent>): void {
  for (const agent of agents.values()) agent.destroy();
}

/** MB/s of four downloads of the large file at once, spread over the addresses. */
async function bigThroughput(urls: string[]): Promise<number> {
  const agents = new Map<string, Agent>();
  const start = performance.now();
  const sizes = await Promise.all(
    Array.from({ length: 4 }, (_, i) => download(urls[i % urls.length] ?? '', agents, 4)),
  );
  closeAll(agents);
  return sizes.reduce((a, b) => a + b, 0) / MB / ((performance.now() - start) / 1000);
}

/** Requests/s of a small file, 64 in flight, spread over the addresses. */
async function smallRate(urls: string[], seconds = 4): Promise<number> {
  const agents = new Map<string, Agent>();
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const loop = async (url: string): Promise<void> => {
    while (performance.now() < until) {
      await download(url, agents, 64);
      done++;
    }
  };
  for (let i = 0; i < 200; i++) await download(urls[i % urls.length] ?? '', agents, 64);
  done = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: 64 }, (_, i) => loop(urls[i % urls.length] ?? '')));
  closeAll(agents);
  return done / ((performance.now() - start) / 1000);
}

/** Runs `data publish <dir>` against a hub and resolves with its exit code. */
function dataPublish(dir: string, api: string, token: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/data', 'publish', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DATA_API: api, DATA_TOKEN: token, DATA_KEYCHAIN: '0', CI: 'true' },
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`data publish exited ${String(code)}: ${err}`)),
    ),
  );
}

/** The 1 GB package under another dataset name, its data file linked, not copied. */
function named(source: string, work: string, name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  linkSync(join(source, 'data.csv'), join(dir, 'data.csv'));
  const descriptor = JSON.parse(readFileSync(join(source, 'datapackage.json'), 'utf8')) as object;
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ ...descriptor, name }));
  return dir;
}

interface Services {
  postgres: RunningPostgres;
  swift: RunningSwift;
}

async function freshDatabase(admin: string): Promise<string> {
  const name = `bench_${String(Date.now())}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  return admin.replace(/\/postgres$/, `/${name}`);
}

async function measure(
  setup: Setup,
  services: Services | undefined,
  work: string,
  big: string,
  small: string,
): Promise<{ publishSeconds: number; publishMb: number; big: number; small: number }> {
  const root = mkdtempSync(join(work, 'setup-'));
  const shared = services
    ? [
        '--database',
        await freshDatabase(services.postgres.url),
        '--storage',
        `s3://${TEST_BUCKET}/bench-${String(Date.now())}?endpoint=${encodeURIComponent(services.swift.endpoint)}&path_style=true`,
      ]
    : ['--data-dir', join(root, 'hub')];
  const hubs = [];
  for (let i = 0; i < setup.processes; i++)
    hubs.push(
      await startServer([
        'bin/data',
        'serve',
        '--port',
        '0',
        ...(services ? ['--data-dir', join(root, `hub-${String(i)}`)] : []),
        ...shared,
      ]),
    );
  try {
    const urls = hubs.map((hub) => hub.url);
    const first = urls[0] ?? '';
    const jwt = await browserLogin(first);
    const smallState = await waitForState(first, (await publish(first, jwt, small)).flowId);
    if (smallState.state !== 'SUCCEEDED') throw new Error('publishing the small package failed');
    const packages = urls.map((_, i) => named(big, root, `big-${String(i)}`));
    const started = performance.now();
    await Promise.all(packages.map((dir, i) => dataPublish(dir, urls[i] ?? '', jwt)));
    const publishSeconds = (performance.now() - started) / 1000;
    const bytes = statSync(join(big, 'data.csv')).size * packages.length;
    return {
      publishSeconds,
      publishMb: bytes / MB / publishSeconds,
      big: await bigThroughput(urls.map((url, i) => `${url}/ada/big-${String(i)}/r/data.csv`)),
      small: await smallRate(urls.map((url) => `${url}/ada/small/r/small.csv`)),
    };
  } finally {
    for (const hub of hubs) hub.child.kill('SIGINT');
    rmSync(root, { recursive: true, force: true });
  }
}

const work = mkdtempSync(join(tmpdir(), 'data-bench-hub-'));
let services: Services | undefined;
try {
  const big = dirname(await generatePackage(join('.bench', 'hub-1gb'), BIG_ROWS, false));
  const small = join(work, 'small');
  mkdirSync(small);
  const rows = Array.from({ length: 60 }, (_, i) => `${String(i)},item ${String(i)}`);
  writeFileSync(join(small, 'small.csv'), `id,name\n${rows.join('\n')}\n`.slice(0, 1024));
  writeFileSync(
    join(small, 'datapackage.json'),
    JSON.stringify({ name: 'small', resources: [{ name: 'small', path: 'small.csv' }] }),
  );
  const bin = postgresBin();
  if (bin && swiftInstalled()) {
    process.env.AWS_ACCESS_KEY_ID = SWIFT_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = SWIFT_CREDENTIALS.secretAccessKey;
    services = { postgres: await startPostgres(bin), swift: await startSwift() };
  } else console.log('PostgreSQL or Swift is not installed: only the embedded hub is measured');

  const plain = await startServer(['bench/plain-server.ts', work]);
  linkSync(join(big, 'data.csv'), join(work, 'big.csv'));
  const baseline = {
    big: await bigThroughput([`${plain.url}/big.csv`]),
    small: await smallRate([`${plain.url}/small/small.csv`]),
  };
  plain.child.kill();

  const size = (statSync(join(big, 'data.csv')).size / MB).toFixed(0);
  console.log(
    `publishing ${size} MB (data publish, to SUCCEEDED) and reading it back over loopback`,
  );
  console.log(
    `${'setup'.padEnd(34)}${'publish s'.padStart(10)}${'MB/s'.padStart(7)}${'1 GB read MB/s'.padStart(16)}${'1 KB req/s'.padStart(12)}`,
  );
  console.log(
    `${'node:http file server (baseline)'.padEnd(34)}${'-'.padStart(10)}${'-'.padStart(7)}${baseline.big.toFixed(0).padStart(16)}${baseline.small.toFixed(0).padStart(12)}`,
  );
  for (const setup of SETUPS) {
    if (setup.services && !services) continue;
    const figures = await measure(setup, setup.services ? services : undefined, work, big, small);
    console.log(
      `${setup.label.padEnd(34)}${figures.publishSeconds.toFixed(1).padStart(10)}${figures.publishMb.toFixed(0).padStart(7)}${figures.big.toFixed(0).padStart(16)}${figures.small.toFixed(0).padStart(12)}`,
    );
  }
} finally {
  services?.swift.stop();
  services?.postgres.stop();
  rmSync(work, { recursive: true, force: true });
}
