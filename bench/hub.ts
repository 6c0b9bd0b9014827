/**
 * The hub on its engines, in one run: the embedded default (SQLite and a folder, one
 * process) next to PostgreSQL and OpenStack Swift (S3) with one and with two hub processes.
 *
 * Publishing, for each engine with one process: the time `data publish` takes to publish
 * the 1.1 GB package to SUCCEEDED, next to its two baselines measured in the same run (curl
 * sending the same bytes to the same hub, and `data validate` of the package), as a ratio;
 * the bytes the hub's store holds after publishing, over the package's; and the time to the
 * first byte and the rate of the JSON copy, the CSV copy, the zip and the Parquet copy of that table, asked
 * for the first time (made as they are sent) and the second (kept).
 *
 * Reading, for every setup: read throughput of the 1 GB resource (redirects to the store
 * followed) and the request rate of a 1 KB resource, with two processes a publication
 * through each at once; and the reads of a plain node:http file server on the same files as
 * the baseline.
 */
import { execFileSync, spawn } from 'node:child_process';
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
import { browserLogin, publish, serviceToken, waitForState } from '../test/hub/protocol.ts';
import { openStorage } from '../packages/hub/dist/engines/storage/open.js';
import { fileDigest } from '../packages/core/dist/files/digest.js';
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

/** A GET to its end, redirects followed: seconds to the first byte and to the last, bytes. */
interface Timed {
  firstByte: number;
  seconds: number;
  bytes: number;
}

function timedGet(url: string, started = performance.now()): Promise<Timed> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const location = response.headers.location;
      if (response.statusCode === 302 && location) {
        response.resume();
        return resolve(timedGet(location, started));
      }
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`${url}: ${String(response.statusCode)}`));
      }
      let firstByte = 0;
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        firstByte ||= performance.now();
        bytes += chunk.length;
      });
      response.on('end', () =>
        resolve({
          firstByte: (firstByte - started) / 1000,
          seconds: (performance.now() - started) / 1000,
          bytes,
        }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

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

/** Seconds curl takes to send a file to a hub the way a client uploads it, as another user. */
async function curlUpload(base: string, file: string): Promise<number> {
  const rawstore = await serviceToken(base, await browserLogin(base, 'bob'), 'rawstore');
  const { length, md5 } = await fileDigest(file);
  const reply = (await (
    await fetch(`${base}/rawstore/authorize`, {
      method: 'POST',
      headers: { 'Auth-Token': rawstore.token, 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { owner: rawstore.userid, findability: 'published' },
        filedata: { 'data.csv': { length, md5, name: 'data.csv', type: 'text/csv' } },
        upload_methods: ['PUT'],
      }),
    })
  ).json()) as {
    filedata: Record<
      string,
      {
        upload_url: string;
        upload_method?: string;
        upload_headers?: Record<string, string>;
        upload_query: Record<string, string>;
      }
    >;
  };
  const entry = reply.filedata['data.csv'];
  if (!entry) throw new Error('the hub gave no upload for the curl baseline');
  const args =
    entry.upload_method === 'PUT'
      ? [
          '-T',
          file,
          ...Object.entries(entry.upload_headers ?? {}).flatMap(([name, value]) => [
            '-H',
            `${name}: ${value}`,
          ]),
          entry.upload_url,
        ]
      : [
          ...Object.entries(entry.upload_query).flatMap(([name, value]) => [
            '-F',
            `${name}=${value}`,
          ]),
          '-F',
          `file=@${file}`,
          entry.upload_url,
        ];
  const started = performance.now();
  execFileSync('curl', ['-sS', '-f', '-o', '/dev/null', '-H', 'Expect:', ...args]);
  return (performance.now() - started) / 1000;
}

/** Seconds `data validate` takes on the package. */
function localValidate(dir: string): number {
  const started = performance.now();
  execFileSync(process.execPath, ['bin/data', 'validate', dir], { stdio: 'ignore' });
  return (performance.now() - started) / 1000;
}

/** Bytes a hub's store holds: data, revisions' files, kept copies and staged uploads. */
async function storedBytes(address: string): Promise<number> {
  const storage = await openStorage(address);
  let total = 0;
  try {
    for (const prefix of ['objects/', 'packages/', 'cache/', 'uploads/'])
      for await (const { size } of storage.list(prefix)) total += size;
  } finally {
    storage.close();
  }
  return total;
}

interface PublishFigures {
  publish: number;
  curl: number;
  validate: number;
  stored: number;
  copies: { name: string; first: Timed; second: Timed }[];
}

const COPIES = [
  ['JSON', 'data_json.json'],
  ['CSV', 'data_csv.csv'],
  ['zip', 'big-0_zip.zip'],
  ['Parquet', 'data_parquet.parquet'],
] as const;

/** Publishing the 1.1 GB package to a fresh hub of one process, and its copies. */
async function measurePublishing(
  services: Services | undefined,
  work: string,
  big: string,
): Promise<PublishFigures> {
  const root = mkdtempSync(join(work, 'publish-'));
  const storage = services
    ? `s3://${TEST_BUCKET}/bench-${String(Date.now())}?endpoint=${encodeURIComponent(services.swift.endpoint)}&path_style=true`
    : join(root, 'hub');
  const hub = await startServer([
    'bin/data',
    'serve',
    '--port',
    '0',
    '--data-dir',
    join(root, 'hub'),
    '--max-storage-mb',
    '100000',
    '--derived-cache-mb',
    '100000',
    ...(services
      ? ['--database', await freshDatabase(services.postgres.url), '--storage', storage]
      : []),
  ]);
  try {
    const dir = named(big, root, 'big-0');
    const jwt = await browserLogin(hub.url);
    const started = performance.now();
    await dataPublish(dir, hub.url, jwt);
    const publishSeconds = (performance.now() - started) / 1000;
    const stored = await storedBytes(storage);
    const curl = await curlUpload(hub.url, join(dir, 'data.csv'));
    const validate = localValidate(dir);
    const copies = [];
    for (const [name, file] of COPIES) {
      const url = `${hub.url}/ada/big-0/r/${file}`;
      copies.push({ name, first: await timedGet(url), second: await timedGet(url) });
    }
    return { publish: publishSeconds, curl, validate, stored, copies };
  } finally {
    hub.child.kill('SIGINT');
    rmSync(root, { recursive: true, force: true });
  }
}

function printPublishing(label: string, figures: PublishFigures, packageBytes: number): void {
  const ratio = figures.publish / (figures.curl + figures.validate);
  console.log(
    `${label.padEnd(22)}${figures.publish.toFixed(1).padStart(9)}${figures.curl.toFixed(1).padStart(8)}${figures.validate.toFixed(1).padStart(12)}${ratio.toFixed(2).padStart(8)}${(figures.stored / packageBytes).toFixed(3).padStart(9)}`,
  );
  for (const { name, first, second } of figures.copies)
    console.log(
      `${''.padEnd(4)}${name.padEnd(8)} first: ${first.firstByte.toFixed(2)} s to the first byte, ${first.seconds.toFixed(1)} s in all, ${(first.bytes / MB / first.seconds).toFixed(0)} MB/s of ${(first.bytes / MB).toFixed(0)} MB; second: ${second.firstByte.toFixed(2)} s, ${(second.bytes / MB / second.seconds).toFixed(0)} MB/s`,
    );
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

  const packageBytes =
    statSync(join(big, 'data.csv')).size + statSync(join(big, 'datapackage.json')).size;
  console.log(
    `publishing ${(packageBytes / MB).toFixed(0)} MB (data publish, to SUCCEEDED), next to curl sending the same bytes and data validate`,
  );
  console.log(
    `${'engine'.padEnd(22)}${'publish s'.padStart(9)}${'curl s'.padStart(8)}${'validate s'.padStart(12)}${'ratio'.padStart(8)}${'stored x'.padStart(9)}`,
  );
  printPublishing('SQLite + folder', await measurePublishing(undefined, work, big), packageBytes);
  if (services)
    printPublishing(
      'PostgreSQL + Swift',
      await measurePublishing(services, work, big),
      packageBytes,
    );
  if (!process.env.BENCH_HUB_PUBLISH_ONLY) await measureReading(services, work, big, small);
} finally {
  services?.swift.stop();
  services?.postgres.stop();
  rmSync(work, { recursive: true, force: true });
}

/** Reads of the 1 GB resource and of a 1 KB one, on every setup, next to a plain server. */
async function measureReading(
  services: Services | undefined,
  work: string,
  big: string,
  small: string,
): Promise<void> {
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
}
