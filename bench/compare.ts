/**
 * `npm run bench:compare [REF]`: this checkout against another build of `data`, command by
 * command, in alternation, as ratios with their spread. REF is a commit, a branch or a tag
 * (built in a git worktree of its own under the temporary folder, kept for the next run), or
 * the folder of a checkout already built. Without REF: the newest release tag before HEAD,
 * or BASELINE when there is none.
 *
 * Each case runs both builds' commands in pairs, in a fresh process each, one build first in
 * even pairs and the other in odd ones, so that a change in the machine's speed falls on both
 * alike; a pair's ratio is this checkout's time over REF's, and each line gives the median
 * ratio, the middle half of the pairs' ratios and their whole range, for the wall time and for
 * the CPU time (user and system, which another program's load moves less). Below 1.00: this
 * checkout is faster.
 *
 * Options: --pairs N (every case), --only validate,startup,publish,diff.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { browserLogin } from '../test/hub/protocol.ts';
import { changedCopy, generatePackage, rowValues, SCHEMA } from './generate.ts';

/** The code before the work issue 47 measured from, while no release is tagged. */
const BASELINE = 'f57de61';
const ROOT = resolve(import.meta.dirname, '..');
const MILLION = join(ROOT, '.bench/million');
const DIFF_A = join(ROOT, '.bench/diff-1000000-a');
const DIFF_B = join(ROOT, '.bench/diff-1000000-b');
const PUBLISH = join(ROOT, '.bench/compare-publish');
const PUBLISH_ROWS = 1_300_000;
const CITIES = join(ROOT, 'examples/cities');
const started = performance.now();

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { pairs: { type: 'string' }, only: { type: 'string' } },
});

function git(...args: string[]): string {
  const run = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

/** The newest release tag before HEAD, else BASELINE. */
function defaultRef(): string {
  const tag = spawnSync('git', ['describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD^'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return tag.status === 0 ? tag.stdout.trim() : BASELINE;
}

function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs a program to its end with its output shown on stderr, or throws. */
function step(command: string, args: string[], cwd: string, env = process.env): void {
  const run = spawnSync(command, args, { cwd, env, stdio: ['ignore', 2, 2] });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}`);
}

/**
 * node_modules for a worktree whose package-lock.json is this checkout's. Without workspaces:
 * a link to this checkout's folder. With them, that folder's links to the workspace packages
 * (data, @data/*) are relative and would resolve to THIS checkout's packages/, so that REF would
 * build with HEAD's core: the worktree gets a real folder instead, each entry an absolute link
 * to this checkout's, except the links into packages/, which name the worktree's own packages,
 * and .bin, whose relative links are made again as they are, so that they resolve inside the
 * worktree's folder (not `npm ci --ignore-scripts --offline`: it copies every package, and
 * fails when npm's cache lacks one).
 */
function linkModules(dir: string): void {
  const ours = join(ROOT, 'node_modules');
  const theirs = join(dir, 'node_modules');
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    workspaces?: unknown;
  };
  if (manifest.workspaces === undefined) {
    symlinkSync(ours, theirs);
    return;
  }
  const packages = join(ROOT, 'packages') + sep;
  const mirror = (from: string, to: string): void => {
    mkdirSync(to);
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.name === '.bin') {
        mkdirSync(target);
        for (const bin of readdirSync(source)) {
          symlinkSync(readlinkSync(join(source, bin)), join(target, bin));
        }
      } else if (entry.isSymbolicLink()) {
        const real = realpathSync(source);
        symlinkSync(real.startsWith(packages) ? join(dir, relative(ROOT, real)) : real, target);
      } else if (from === ours && entry.name.startsWith('@')) mirror(source, target);
      else symlinkSync(source, target);
    }
  };
  mirror(ours, theirs);
}

/**
 * REF built in a worktree under the temporary folder: node_modules is this checkout's when the
 * two lockfiles are the same (linkModules), else installed there without install scripts (the registry is
 * asked then). A worktree already built is used again.
 */
function builtWorktree(ref: string): string {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(tmpdir(), 'data-bench-compare', commit);
  const done = join(dir, '.compare-built');
  if (existsSync(done)) return dir;
  if (!existsSync(join(dir, '.git'))) {
    mkdirSync(dirname(dir), { recursive: true });
    git('worktree', 'add', '--detach', dir, commit);
  }
  const ourLock = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  const theirLock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (!existsSync(join(dir, 'node_modules'))) {
    if (ourLock === theirLock) linkModules(dir);
    else {
      say(`${ref}: its package-lock.json differs from this checkout's: npm ci --ignore-scripts`);
      step('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
    }
  }
  say(`${ref}: building ${commit.slice(0, 12)} in ${dir}`);
  // This Node.js first: the `node` package's own binary is not installed without its scripts.
  const path = [dirname(process.execPath), join(dir, 'node_modules/.bin'), process.env.PATH];
  step('npm', ['run', 'build'], dir, { ...process.env, PATH: path.join(':') });
  writeFileSync(done, `${commit}\n`);
  return dir;
}

interface Build {
  label: string;
  dir: string;
  env: Record<string, string>;
}

interface Timing {
  seconds: number;
  cpu: number;
}

/**
 * CPU time of a command and its threads: perf's task-clock (to the microsecond) where perf
 * runs, else GNU time's user and system seconds (to the hundredth).
 */
const PERF = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', 'true']).status === 0;

function cpuSeconds(report: string): number {
  const lines = report.trim().split('\n');
  if (PERF) {
    const clock = lines.find((line) => line.includes(',task-clock,'));
    return Number(clock?.split(',')[0]) / 1000;
  }
  const [user = 0, system = 0] = (lines.pop() ?? '').split(' ').map(Number);
  return user + system;
}

/** One command of a build, in a fresh process, timed; throws unless it exits as expected. */
function timed(build: Build, args: string[], expected: number[]): Promise<Timing> {
  const report = join(work, 'cpu');
  const command = [process.execPath, join(build.dir, 'bin/data'), ...args];
  const begun = performance.now();
  const child = PERF
    ? spawn('perf', ['stat', '-x,', '-e', 'task-clock', '-o', report, '--', ...command], {
        cwd: build.dir,
        env: { ...process.env, ...build.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
    : spawn('/usr/bin/time', ['-f', '%U %S', '-o', report, ...command], {
        cwd: build.dir,
        env: { ...process.env, ...build.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((done, fail) =>
    child.on('close', (code) => {
      const seconds = (performance.now() - begun) / 1000;
      if (!expected.includes(code ?? -1))
        return fail(
          new Error(
            `${build.label}: data ${args.join(' ')} exited ${String(code)}: ${err.slice(-2000)}`,
          ),
        );
      done({ seconds, cpu: cpuSeconds(readFileSync(report, 'utf8')) });
    }),
  );
}

interface Case {
  name: string;
  what: string;
  pairs: number;
  /** Why a build cannot run it, checked once. */
  skip?: (build: Build) => string | undefined;
  run: (build: Build, index: number) => Promise<Timing>;
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] ?? Number.NaN;

function ratioLine(label: string, ours: number[], theirs: number[]): string {
  const ratios = ours.map((value, index) => value / (theirs[index] ?? Number.NaN));
  const sorted = [...ratios].sort((a, b) => a - b);
  const fixed = (value: number) => value.toFixed(2);
  const median = (values: number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  return (
    `  ${label.padEnd(5)} ${fixed(quantile(sorted, 0.5))}  ` +
    `(middle half ${fixed(quantile(sorted, 0.25))}–${fixed(quantile(sorted, 0.75))}, ` +
    `all ${fixed(sorted[0] ?? 0)}–${fixed(sorted.at(-1) ?? 0)})  ` +
    `medians ${median(ours).toFixed(3)} s against ${median(theirs).toFixed(3)} s`
  );
}

/** Both builds in pairs, the order turned each pair, after one untimed run of each. */
async function compare(test: Case, ours: Build, theirs: Build): Promise<void> {
  const skipped = test.skip?.(theirs) ?? test.skip?.(ours);
  if (skipped) {
    console.log(`${test.name}: skipped, ${skipped}`);
    return;
  }
  const begun = performance.now();
  await test.run(ours, -1);
  await test.run(theirs, -2);
  const times: [Timing[], Timing[]] = [[], []];
  for (let pair = 0; pair < test.pairs; pair++) {
    const order = pair % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order)
      times[side]?.push(await test.run(side === 0 ? ours : theirs, pair * 2 + side));
  }
  const [mine, other] = times;
  console.log(
    `${test.name}: ${test.what}, ${String(test.pairs)} pairs in ${((performance.now() - begun) / 1000).toFixed(0)} s`,
  );
  const wall = (runs: Timing[]) => runs.map((run) => run.seconds);
  const cpu = (runs: Timing[]) => runs.map((run) => run.cpu);
  console.log(ratioLine('wall', wall(mine), wall(other)));
  console.log(ratioLine('cpu', cpu(mine), cpu(other)));
}

/** Whether a build has a command: its help lists it. */
function hasCommand(build: Build, command: string): boolean {
  const run = spawnSync(process.execPath, [join(build.dir, 'bin/data'), '--help'], {
    env: { ...process.env, ...build.env },
    encoding: 'utf8',
  });
  return new RegExp(`^\\s+${command}\\b`, 'm').test(run.stdout);
}

/** The package published again and again: a table whose first row carries the run's tag. */
function publishPackage(): { file: string; tagAt: number } {
  const file = join(PUBLISH, 'data.csv');
  const first = `0,Tag 0,2024-01-01,0.00,true,books,"tag `;
  if (!existsSync(join(PUBLISH, 'datapackage.json'))) {
    mkdirSync(PUBLISH, { recursive: true });
    const handle = openSync(file, 'w');
    try {
      writeSync(handle, `id,name,day,amount,active,category,note\n${first}0000000000"\n`);
      for (let start = 1; start <= PUBLISH_ROWS; start += 10_000) {
        let text = '';
        for (let id = start; id < start + 10_000 && id <= PUBLISH_ROWS; id++) {
          const values = rowValues(id);
          text += `${values.slice(0, 6).join(',')},"${values[6]}"\n`;
        }
        writeSync(handle, text);
      }
    } finally {
      closeSync(handle);
    }
    const schema = { ...SCHEMA, primaryKey: ['id'] };
    const resources = [{ name: 'data', path: 'data.csv', schema }];
    writeFileSync(
      join(PUBLISH, 'datapackage.json'),
      JSON.stringify({ name: 'compare-publish', resources }),
    );
  }
  return { file, tagAt: 'id,name,day,amount,active,category,note\n'.length + first.length };
}

/** A hub of one build on a loopback port, with a signed-in user's token. */
async function startHub(build: Build, work: string): Promise<() => Promise<void>> {
  const child = spawn(
    process.execPath,
    [
      join(build.dir, 'bin/data'),
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(work, `hub-${build.label}`),
      '--max-storage-mb',
      '100000',
    ],
    { cwd: build.dir, env: { ...process.env, ...build.env }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const ended = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = () => {
    child.kill('SIGINT');
    return ended;
  };
  try {
    const url = await new Promise<string>((found, fail) => {
      child.once('exit', () => fail(new Error(`${build.label}: data serve ended`)));
      child.stdout.on('data', (chunk: Buffer) => {
        const address = /(http:\/\/127\.0\.0\.1:\d+)/.exec(chunk.toString())?.[1];
        if (address) found(address);
      });
    });
    build.env.DATA_API = url;
    build.env.DATA_TOKEN = await browserLogin(url);
    return stop;
  } catch (error) {
    await stop();
    throw error;
  }
}

const only = options.only?.split(',');
const pairs = (standard: number) => (options.pairs ? Number(options.pairs) : standard);
const ref = positionals[0] ?? defaultRef();
/** A folder already built, in the layout of today (packages/) or of before it (dist/). */
const refDir =
  existsSync(join(ref, 'bin/data')) &&
  (existsSync(join(ref, 'packages/cli/dist')) || existsSync(join(ref, 'dist')))
    ? resolve(ref)
    : undefined;
const work = mkdtempSync(join(tmpdir(), 'data-bench-compare-run-'));
const stops: (() => Promise<void>)[] = [];
try {
  const theirDir = refDir ?? builtWorktree(ref);
  const describe = (dir: string) =>
    spawnSync('git', ['log', '-1', '--format=%h %s'], { cwd: dir, encoding: 'utf8' })
      .stdout.trim()
      .slice(0, 72);
  const common = { CI: 'true', NO_COLOR: '1' };
  const ours: Build = {
    label: 'this',
    dir: ROOT,
    env: {
      ...common,
      DATA_CACHE_DIR: join(work, 'cache-this'),
      DATA_CONFIG_DIR: join(work, 'config-this'),
    },
  };
  const theirs: Build = {
    label: 'ref',
    dir: theirDir,
    env: {
      ...common,
      DATA_CACHE_DIR: join(work, 'cache-ref'),
      DATA_CONFIG_DIR: join(work, 'config-ref'),
    },
  };
  await generatePackage(MILLION, 1_000_000, true);
  const everyCase: Case[] = [
    {
      name: 'validate',
      what: 'data validate of the 1,000,000-row table (75 MB)',
      pairs: pairs(15),
      run: (build) => timed(build, ['validate', MILLION], [0]),
    },
    {
      name: 'startup',
      what: 'data validate examples/cities, start-up included',
      pairs: pairs(40),
      run: (build) => timed(build, ['validate', CITIES], [0]),
    },
    {
      name: 'publish',
      what: `data publish of a ${String(PUBLISH_ROWS / 1e6)}M-row package (100 MB) to the build's own hub, until published`,
      pairs: pairs(8),
      skip: (build) =>
        hasCommand(build, 'serve') ? undefined : `${build.label} has no data serve`,
      run: async (build, index) => {
        const { file, tagAt } = publishPackage();
        const handle = openSync(file, 'r+');
        try {
          writeSync(handle, String(index + 10).padStart(10, '0'), tagAt);
        } finally {
          closeSync(handle);
        }
        return timed(build, ['publish', PUBLISH], [0]);
      },
    },
    {
      name: 'diff',
      what: 'data diff of two versions of the 1,000,000-row table',
      pairs: pairs(8),
      skip: (build) => (hasCommand(build, 'diff') ? undefined : `${build.label} has no data diff`),
      run: (build) => timed(build, ['diff', DIFF_A, DIFF_B, '--limit', '0'], [1]),
    },
  ];
  const cases = everyCase.filter((test) => !only || only.includes(test.name));
  console.log(`this checkout: ${describe(ROOT)}`);
  console.log(`against ${ref}: ${describe(theirDir)}`);
  console.log(`ratios of this checkout's time to ${ref}'s, pair by pair; node ${process.version}`);
  // A case that fails (an older build's hub that takes other options) is said, and the
  // others run.
  for (const test of cases) {
    try {
      if (test.name === 'diff') {
        await generatePackage(DIFF_A, 1_000_000, true);
        await changedCopy(DIFF_A, DIFF_B, 1_000_000);
      }
      if (test.name === 'publish' && !test.skip?.(theirs) && !test.skip?.(ours)) {
        publishPackage();
        stops.push(await startHub(ours, work));
        stops.push(await startHub(theirs, work));
      }
      await compare(test, ours, theirs);
    } catch (error) {
      process.exitCode = 1;
      console.log(
        `${test.name}: failed, ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
} finally {
  await Promise.all(stops.map((stop) => stop()));
  rmSync(work, { recursive: true, force: true });
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
