/**
 * Publishes and then gets a 1 GB package (four files) over loopback with the CLI, and moves
 * as many bytes to and from the same hub with curl: MB/s each way, and the CLI's peak RSS.
 * Publishing runs five times against curl, each run with bytes of its own; curl also runs
 * against itself, to show how far two runs of one program differ on this machine.
 * Both download sides save the files on the same disk; writing dominates and varies from run
 * to run here, so each download starts after a sync (no dirty pages of the run before), each
 * side runs once untimed and then five times, first every other time, and the best run counts.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
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

/** GNU time's last line: peak resident memory in KB, then user and system CPU seconds. */
const TIME_FORMAT = '%M %U %S';

function timeLine(stderr: string): { rssMB: number; cpu: number } {
  const [rss = 0, user = 0, system = 0] = (stderr.trim().split('\n').pop() ?? '')
    .split(' ')
    .map(Number);
  return { rssMB: rss / 1024, cpu: user + system };
}

/** Runs the CLI under GNU time to read its peak resident memory and its CPU time. */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ seconds: number; rssMB: number; cpu: number; out: string }> {
  const started = performance.now();
  const child = spawn(
    '/usr/bin/time',
    ['-f', TIME_FORMAT, process.execPath, join(process.cwd(), 'bin/data'), ...args],
    { env: { ...process.env, ...env } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`data ${args.join(' ')} failed: ${err}`));
      resolve({ seconds: (performance.now() - started) / 1000, ...timeLine(err), out });
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

/** Writes `bytes` over the end of a file: the same length, the same start, other content. */
function overwriteTail(path: string, bytes: Buffer): void {
  const handle = openSync(path, 'r+');
  try {
    writeSync(handle, bytes, 0, bytes.length, fstatSync(handle).size - bytes.length);
  } finally {
    closeSync(handle);
  }
}

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

/**
 * Seconds curl takes to send a package's files through signed forms of the hub, one curl
 * per file in parallel, and the CPU seconds of the curls together.
 */
async function curlUpload(
  hubUrl: string,
  rawstore: { token: string; userid: string },
  dir: string,
  resources: { path: string }[],
): Promise<{ seconds: number; cpu: number }> {
  const files = new Map(
    resources.map((resource) => [resource.path, readFileSync(join(dir, resource.path))]),
  );
  const forms = ((await (await authorizeUploads(hubUrl, rawstore, files)).json()) as AuthorizeReply)
    .filedata;
  const started = performance.now();
  let cpu = 0;
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
          const child = spawn('/usr/bin/time', [
            '-f',
            TIME_FORMAT,
            'curl',
            '-sS',
            '-o',
            '/dev/null',
            ...fields,
            '-F',
            `file=@${join(dir, resource.path)}`,
            form.upload_url,
          ]);
          let err = '';
          child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
          child.on('close', (code) => {
            if (code !== 0) return reject(new Error(`curl exited ${String(code)}: ${err}`));
            cpu += timeLine(err).cpu;
            resolve();
          });
        }),
    ),
  );
  return { seconds: (performance.now() - started) / 1000, cpu };
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
    const publishes: { seconds: number; rssMB: number; cpu: number }[] = [];
    const curlUps: number[] = [];
    // curl again, against itself: how far two runs of one program differ here.
    const curlAgain: number[] = [];
    const curlCpu: number[] = [];
    const publishOnce = async (run: number) => {
      const dir = join(work, 'ours');
      writePackage(dir, `-ours-${String(run)}`);
      spawnSync('sync');
      const done = await cli(['--json', 'publish', dir, '--no-wait'], env);
      const result = JSON.parse(done.out) as { seconds: { upload: number } };
      publishes.push({ seconds: result.seconds.upload, rssMB: done.rssMB, cpu: done.cpu });
      await published(`transfer-ours-${String(run)}`);
    };
    const uploadOnce = async (run: number, times: number[], tag: string) => {
      const dir = join(work, 'theirs');
      const files = writePackage(dir, `-${tag}-${String(run)}`);
      spawnSync('sync');
      const { seconds, cpu } = await curlUpload(hub.url, rawstore, dir, files);
      times.push(seconds);
      curlCpu.push(cpu);
    };
    // Each of the three goes first, second and third in turn.
    const steps = [
      (run: number) => publishOnce(run),
      (run: number) => uploadOnce(run, curlUps, 'theirs'),
      (run: number) => uploadOnce(run, curlAgain, 'again'),
    ];
    for (let run = 0; run < RUNS; run++)
      for (let step = 0; step < steps.length; step++)
        await steps[(run + step) % steps.length]?.(run);
    // Files the hub may hold (of the same length and first 64 KiB as stored ones: the last
    // run's, with their last bytes changed) are hashed beside their upload, as before.
    const changed = join(work, 'ours');
    const lastFiles = writePackage(changed, `-ours-${String(RUNS - 1)}`);
    for (const file of lastFiles)
      overwriteTail(join(changed, file.path), Buffer.from('changed at the end'));
    writeFileSync(
      join(changed, 'datapackage.json'),
      JSON.stringify({ name: 'transfer-changed', resources: lastFiles }),
    );
    spawnSync('sync');
    const mayHold = await cli(['--json', 'publish', changed, '--no-wait'], env);
    const mayHoldSeconds = (JSON.parse(mayHold.out) as { seconds: { upload: number } }).seconds
      .upload;
    await published('transfer-changed');
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
    const row = (label: string, ours: number, theirs: number, target: number) =>
      `${label.padEnd(34)}${ours.toFixed(0).padStart(10)}${theirs.toFixed(0).padStart(10)}${`${((ours / theirs) * 100).toFixed(0)}%`.padStart(8)}  ${ours / theirs >= target ? 'met' : 'NOT met'} (target >= ${String(target * 100)}%)`;
    console.log(`${String(FILES)} files x ${String(FILE_MB)} MB over loopback; MB/s`);
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
        0.9,
      ),
    );
    console.log(
      row(`get (whole command, best of ${String(RUNS)})`, rate(got.seconds), rate(curlDown), 0.8),
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
    const again = curlAgain.map((seconds, index) => (curlUps[index] ?? 0) / seconds);
    console.log(
      `for reference, curl against curl, the same runs: ${again.map(percent).join(', ')} (each of its runs with bytes of its own)`,
    );
    const cpuPerGB = (values: number[]) => (median(values) / (total / 1024 ** 3)).toFixed(2);
    console.log(
      `CPU seconds per GB sent, medians: data publish ${cpuPerGB(publishes.map((run) => run.cpu))} (the whole command), curl ${cpuPerGB(curlCpu)} (its four processes)`,
    );
    console.log(
      `for reference, one publish of files the hub may hold (hashed as well): ${rate(mayHoldSeconds).toFixed(0)} MB/s, ${percent(median(curlUps) / mayHoldSeconds)} of curl's median rate, ${(mayHold.cpu / (total / 1024 ** 3)).toFixed(2)} CPU seconds per GB`,
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
