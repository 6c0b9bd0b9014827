/**
 * How long a user waits for the answers the tests check only in order: each next to the
 * start of `data --version`, the least any command costs, measured in the same rounds.
 * - `data serve` refusing a port already taken, and a database that cannot be reached;
 * - `data publish` of a one-row package to SUCCEEDED, next to `data validate` of it;
 * - from SIGINT to the exit (code 130) of `data validate` reading a table that never ends,
 *   of `data validate` in the middle of a 60 MB local file (two workers), and of
 *   `data validate` checking a pattern that backtracks on each of 400,000 cells (a worker);
 * Each is run ROUNDS times, the order rotating from round to round; median and range.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../test/helpers/serve.ts';
import { browserLogin } from '../test/hub/protocol.ts';

const ROUNDS = 7;
const BIN = join(import.meta.dirname, '../bin/data');
const work = mkdtempSync(join(tmpdir(), 'data-bench-latency-'));

interface Run {
  ms: number;
  code: number | null;
}

/** Runs bin/data, timed from its start, or from the SIGINT sent once `interruptWhen` holds. */
function data(
  args: string[],
  env: Record<string, string> = {},
  interruptWhen?: (err: string) => boolean,
): Promise<Run> {
  let started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', CI: 'true', DATA_KEYCHAIN: '0', ...env },
  });
  let err = '';
  let sent = false;
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    if (sent || !interruptWhen?.(err)) return;
    sent = true;
    started = performance.now();
    child.kill('SIGINT');
  });
  child.stdout.resume();
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ ms: performance.now() - started, code })),
  );
}

function expectCode(run: Run, code: number, what: string): number {
  if (run.code !== code) throw new Error(`${what} exited ${String(run.code)}, not ${String(code)}`);
  return run.ms;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return `${ms(median).padStart(8)}  (${ms(sorted[0] ?? 0)} to ${ms(sorted.at(-1) ?? 0)})`;
}

async function main(): Promise<void> {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = String((taken.address() as { port: number }).port);
  const endless = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/csv' });
    response.write('id,name\n');
    const timer = setInterval(() => response.write('1,x\n'), 20);
    response.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
  const endlessUrl = `http://127.0.0.1:${String((endless.address() as { port: number }).port)}/t.csv`;

  const big = join(work, 'big.csv');
  let rows = 'id,name,amount\n';
  for (let index = 0; rows.length < 60 * 1024 * 1024; index++)
    rows += `${String(index)},name ${String(index % 1000)},${String(index % 997)}.25\n`;
  writeFileSync(big, rows);
  const backtracking = join(work, 'backtracking');
  mkdirSync(backtracking);
  writeFileSync(join(backtracking, 't.csv'), `v\n${`${'a'.repeat(14)}!\n`.repeat(400_000)}`);
  writeFileSync(
    join(backtracking, 'datapackage.json'),
    JSON.stringify({
      name: 'p',
      resources: [
        {
          name: 't',
          path: 't.csv',
          schema: { fields: [{ name: 'v', constraints: { pattern: '(a+)+$' } }] },
        },
      ],
    }),
  );
  const small = join(work, 'small');
  mkdirSync(small);
  writeFileSync(join(small, 'a.csv'), 'id\n1\n');
  writeFileSync(
    join(small, 'datapackage.json'),
    JSON.stringify({ name: 'small', resources: [{ name: 'a', path: 'a.csv' }] }),
  );
  const hub = await startServe(['--data-dir', join(work, 'hub'), '--dev-sign-in']);
  const token = await browserLogin(hub.url);
  const hubEnv = { DATA_API: hub.url, DATA_TOKEN: token, DATA_CONFIG_DIR: join(work, 'config') };

  const cases: [string, () => Promise<number>][] = [
    ['data --version (baseline)', async () => expectCode(await data(['--version']), 0, 'version')],
    [
      'data serve, port taken: refused',
      async () =>
        expectCode(
          await data(['serve', '--port', port, '--data-dir', join(work, 'refused')]),
          2,
          'serve',
        ),
    ],
    [
      'data serve, database unreachable: refused',
      async () =>
        expectCode(
          await data(['serve', '--port', '0', '--database', 'postgres://127.0.0.1:1/hub']),
          2,
          'serve',
        ),
    ],
    [
      'data validate, one-row package',
      async () => expectCode(await data(['validate', small]), 0, 'validate'),
    ],
    [
      'data publish, one-row package to SUCCEEDED',
      async () => {
        // A row of its own each time: a package that did not change makes no revision.
        writeFileSync(join(small, 'a.csv'), `id\n${String(Math.random()).slice(2)}\n`);
        return expectCode(await data(['publish', small, '--force'], hubEnv), 0, 'publish');
      },
    ],
    [
      'Ctrl-C: data validate of an endless table',
      async () =>
        expectCode(
          await data(['validate', endlessUrl, '--debug'], {}, (err) =>
            err.includes(': validating\n'),
          ),
          130,
          'validate',
        ),
    ],
    [
      'Ctrl-C: data validate of a 60 MB file',
      async () =>
        expectCode(
          await data(['validate', big, '--debug'], {}, (err) => err.includes('big: validating\n')),
          130,
          'validate',
        ),
    ],
    [
      'Ctrl-C: data validate checking a pattern',
      async () =>
        expectCode(
          await data(['validate', backtracking, '--limit-errors', '0', '--debug'], {}, (err) =>
            err.includes('t: validating\n'),
          ),
          130,
          'validate',
        ),
    ],
  ];

  const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let index = 0; index < cases.length; index++) {
      const [name, measure] = cases[(index + round) % cases.length] ?? [];
      if (name && measure) times.get(name)?.push(await measure());
    }
  }
  console.log(`median of ${String(ROUNDS)} (fastest to slowest)`);
  for (const [name, values] of times) console.log(`${name.padEnd(46)}${summary(values)}`);
  await hub.stop();
  taken.close();
  endless.closeAllConnections();
  endless.close();
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
