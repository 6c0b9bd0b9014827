/**
 * Publishes and then gets a 1 GB package (four files) over loopback with the CLI, and moves
 * as many bytes to and from the same hub with curl: MB/s each way, and the CLI's peak RSS.
 * Publishing runs five times against curl, each run with bytes of its own.
 * Both download sides save the files on the same disk; writing dominates and varies from run
 * to run here, so each download starts after a sync (no dirty pages of the run before), each
 * side runs once untimed and then five times, first every other time, and the best run counts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  browserLogin,
  serviceToken,
  authorizeUploads,
  type AuthorizeReply,
} from '../test/hub/protocol.ts';
import { readFileSync } from 'node:fs';

const MB = 1024 * 1024;
const FILES = 4;
const FILE_MB = 256;
const work = mkdtempSync(join(tmpdir(), 'data-bench-transfer-'));

function start(args: string[]): Promise<{ kill: () => void; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(chunk.toString())?.[1];
      if (url) resolve({ kill: () => child.kill('SIGINT'), url });
    });
  });
}

/** Runs the CLI under GNU time to read its peak resident memory. */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ seconds: number; rssMB: number; out: string }> {
  const started = performance.now();
  const child = spawn(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, join(process.cwd(), 'bin/data'), ...args],
    { env: { ...process.env, ...env } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`data ${args.join(' ')} failed: ${err}`));
      const rss = Number(err.trim().split('\n').pop());
      resolve({ seconds: (performance.now() - started) / 1000, rssMB: rss / 1024, out });
    }),
  );
}

function curl(args: string[]): number {
  const started = performance.now();
  const child = spawnSync('curl', ['-sS', ...args], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`curl failed: ${child.stderr}`);
  return (performance.now() - started) / 1000;
}

const RUNS = 5;

/** A package of FILES files of FILE_MB each, whose bytes differ by `tag` (the hub keeps each once). */
function writePackage(dir: string, tag: string): { name: string; path: string }[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  const resources = Array.from({ length: FILES }, (_, index) => ({
    name: `part-${String(index)}`,
    path: `data/part-${String(index)}.bin`,
  }));
  for (const [index, resource] of resources.entries())
    writeFileSync(
      join(dir, resource.path),
      Buffer.alloc(FILE_MB * MB, `block ${String(index)} ${tag} `),
    );
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({ name: `transfer${tag}`, resources }),
  );
  return resources;
}

/** Seconds curl takes to send a package's files through signed forms of the hub, one curl per file in parallel. */
async function curlUpload(
  hubUrl: string,
  rawstore: { token: string; userid: string },
  dir: string,
  resources: { path: string }[],
): Promise<number> {
  const files = new Map(
    resources.map((resource) => [resource.path, readFileSync(join(dir, resource.path))]),
  );
  const forms = ((await (await authorizeUploads(hubUrl, rawstore, files)).json()) as AuthorizeReply)
    .filedata;
  const started = performance.now();
  await Promise.all(
    resources.map(
      (resource) =>
        new Promise<void>((resolve, reject) => {
          const form = forms[resource.path];
          if (!form) return reject(new Error('no form'));
          const fields = Object.entries(form.upload_query).flatMap(([name, value]) => [
            '-F',
            `${name}=${value}`,
          ]);
          const child = spawn('curl', [
            '-sS',
            '-o',
            '/dev/null',
            ...fields,
            '-F',
            `file=@${join(dir, resource.path)}`,
            form.upload_url,
          ]);
          child.on('close', (code) =>
            code === 0 ? resolve() : reject(new Error(`curl exited ${String(code)}`)),
          );
        }),
    ),
  );
  return (performance.now() - started) / 1000;
}

try {
  const pkg = join(work, 'pkg');
  const resources = writePackage(pkg, '');
  const total = FILES * FILE_MB * MB;

  const hub = await start([
    'bin/data',
    'serve',
    '--port',
    '0',
    '--data-dir',
    join(work, 'hub'),
    // Eleven gigabytes go up: more than a user's 10 GB by default.
    '--max-storage-mb',
    '100000',
  ]);
  try {
    const token = await browserLogin(hub.url);
    const env = {
      DATA_API: hub.url,
      DATA_TOKEN: token,
      DATA_CONFIG_DIR: join(work, 'config'),
      CI: 'true',
      NO_COLOR: '1',
    };
    // Published once for the downloads below; then five times more against curl, each
    // run with bytes of its own for each side (the hub would skip bytes it holds), each
    // side first every other run.
    // A publication goes on in the hub after the upload (it zips the dataset): each measured
    // run waits for the one before to end, or the hub's work would slow the next.
    const published = async (name: string) => {
      for (let i = 0; i < 1200; i++) {
        const { status } = await fetch(`${hub.url}/ada/${name}/datapackage.json`);
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${name} was not published in 2 minutes`);
    };
    await cli(['--json', 'publish', pkg, '--no-wait'], env);
    await published('transfer');
    const rawstore = await serviceToken(hub.url, token, 'rawstore');
    const publishes: { seconds: number; rssMB: number }[] = [];
    const curlUps: number[] = [];
    const publishOnce = async (run: number) => {
      const dir = join(work, 'ours');
      writePackage(dir, `-ours-${String(run)}`);
      spawnSync('sync');
      const done = await cli(['--json', 'publish', dir, '--no-wait'], env);
      const result = JSON.parse(done.out) as { seconds: { upload: number } };
      publishes.push({ seconds: result.seconds.upload, rssMB: done.rssMB });
      await published(`transfer-ours-${String(run)}`);
    };
    const uploadOnce = async (run: number) => {
      const dir = join(work, 'theirs');
      const files = writePackage(dir, `-theirs-${String(run)}`);
      spawnSync('sync');
      curlUps.push(await curlUpload(hub.url, rawstore, dir, files));
    };
    for (let run = 0; run < RUNS; run++) {
      if (run % 2 === 0) {
        await publishOnce(run);
        await uploadOnce(run);
      } else {
        await uploadOnce(run);
        await publishOnce(run);
      }
    }
    rmSync(join(work, 'ours'), { recursive: true, force: true });
    rmSync(join(work, 'theirs'), { recursive: true, force: true });
    const urls = resources.map(
      (resource) => `${hub.url}/ada/transfer/r/${resource.path.split('/').pop() ?? ''}`,
    );
    const gets: { seconds: number; rssMB: number }[] = [];
    const curlDowns: number[] = [];
    const out = join(work, 'got');
    const fresh = () => {
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out);
      spawnSync('sync');
    };
    const ours = async () => {
      fresh();
      gets.push(await cli(['get', 'ada/transfer', '--out', out, '--force'], env));
    };
    const theirs = () => {
      fresh();
      curlDowns.push(
        curl([
          '--parallel',
          ...urls.flatMap((url, index) => [url, '-o', join(out, String(index))]),
        ]),
      );
    };
    // An untimed run of each side warms the hub's code and page cache and the machine's page
    // allocator (the first gigabyte written after start-up took up to 4 s either way); then
    // each side goes first every other run.
    await ours();
    theirs();
    gets.length = 0;
    curlDowns.length = 0;
    for (let run = 0; run < RUNS; run++) {
      if (run % 2 === 0) {
        await ours();
        theirs();
      } else {
        theirs();
        await ours();
      }
    }
    rmSync(join(work, 'got'), { recursive: true, force: true });
    const toNull = curl(['--parallel', ...urls.flatMap((url) => [url, '-o', '/dev/null'])]);
    const got = {
      seconds: Math.min(...gets.map((run) => run.seconds)),
      rssMB: Math.max(...gets.map((run) => run.rssMB)),
    };
    const curlDown = Math.min(...curlDowns);

    const rate = (seconds: number) => total / MB / seconds;
    const row = (label: string, ours: number, theirs: number) =>
      `${label.padEnd(34)}${ours.toFixed(0).padStart(10)}${theirs.toFixed(0).padStart(10)}${`${((ours / theirs) * 100).toFixed(0)}%`.padStart(8)}  ${ours / theirs >= 0.8 ? 'met' : 'NOT met'}`;
    console.log(
      `${String(FILES)} files x ${String(FILE_MB)} MB over loopback; MB/s (target >= 80% of curl)`,
    );
    console.log(
      `${''.padEnd(34)}${'data'.padStart(10)}${'curl'.padStart(10)}${'ratio'.padStart(8)}`,
    );
    const ratios = publishes.map((run, index) => (curlUps[index] ?? 0) / run.seconds);
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    console.log(
      row(
        `publish (hashing + uploads, median of ${String(RUNS)})`,
        rate(median(publishes.map((run) => run.seconds))),
        rate(median(curlUps)),
      ),
    );
    console.log(
      row(`get (whole command, best of ${String(RUNS)})`, rate(got.seconds), rate(curlDown)),
    );
    const runs = (seconds: number[]) => seconds.map((value) => value.toFixed(2)).join(', ');
    console.log(
      `download runs, seconds: data ${runs(gets.map((run) => run.seconds))}; curl ${runs(curlDowns)}`,
    );
    console.log(
      `for reference, curl downloading to /dev/null (no disk): ${rate(toNull).toFixed(0)} MB/s`,
    );
    const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
    console.log(
      `publish runs, data against curl: ${ratios.map(percent).join(', ')} (target: each >= 90%: ${ratios.every((ratio) => ratio >= 0.9) ? 'met' : 'NOT met'})`,
    );
    const publishRss = Math.max(...publishes.map((run) => run.rssMB));
    console.log(
      `peak RSS of data: publish ${publishRss.toFixed(0)} MB (target < 150 MB: ${publishRss < 150 ? 'met' : 'NOT met'}), get ${got.rssMB.toFixed(0)} MB (target < 200 MB: ${got.rssMB < 200 ? 'met' : 'NOT met'})`,
    );
  } finally {
    hub.kill();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
