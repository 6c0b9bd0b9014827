import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runBin, runBinSync } from '../helpers/cli.js';
import { backtrackingPackage, folder } from '../helpers/fixtures.js';

/** The built data in a child process, waited for in this thread. */
function data(args: string[], env: Record<string, string> = {}) {
  return runBinSync(args, { env: { CI: 'true', ...env } });
}

/** The built data in a child process, without blocking this one (whose servers must answer). */
function dataAsync(args: string[]) {
  return runBin(args, { env: { CI: 'true' } });
}

async function writeRows(
  path: string,
  megabytes: number,
  row: (index: number) => string,
): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,name,amount,day\n');
  let written = 0;
  for (let index = 0; written < megabytes * 1024 * 1024; index++) {
    let batch = '';
    for (let k = 0; k < 5000; k++) batch += row(index * 5000 + k);
    written += batch.length;
    if (!out.write(batch)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

const row = (index: number): string =>
  `${String(index)},name ${String(index % 1000)},${String(index % 997)}.25,2024-0${String(1 + (index % 9))}-1${String(index % 9)}\n`;

describe('bin/data validate', () => {
  it('validates an example and exits 0', () => {
    const { code, out } = data(['validate', 'examples/cities']);
    expect(code).toBe(0);
    expect(out).toMatch(/^✔ valid: 2 resources, 12 rows checked/);
  });

  it('exits 1 with one JSON report on an invalid package', () => {
    const { code, out } = data(['--json', 'validate', 'examples/invalid-files']);
    expect(code).toBe(1);
    const report = JSON.parse(out) as { tasks: { errors: { type: string }[] }[] };
    expect(report.tasks.flatMap((task) => task.errors.map((error) => error.type))).toEqual([
      'scheme-error',
      'source-error',
      'hash-count',
      'byte-count',
      'hash-count',
      'encoding-error',
      'byte-count',
    ]);
  });

  it('exits 2 on a path that does not exist and on an unknown flag', () => {
    expect(data(['validate', 'examples/nothing-here']).code).toBe(2);
    expect(data(['validate', '--frobnicate']).code).toBe(2);
  });

  it('prints the version', () => {
    expect(data(['--version']).out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  // Debian's own Node.js, older than data needs, beside the one the tests run on.
  const OLD_NODE = '/usr/bin/node';
  const oldNode = (() => {
    const run = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const [major = 0, minor = 0] = (run.stdout ?? '').trim().split('.').map(Number);
    return run.status === 0 && (major < 22 || (major === 22 && minor < 19));
  })();
  it.skipIf(!oldNode && !process.env.CI)('refuses an older Node.js, even for --version', () => {
    expect(oldNode).toBe(true);
    for (const args of [['--version'], ['validate', 'examples/cities']]) {
      const run = spawnSync(OLD_NODE, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: data needs Node\.js 22\.19 or newer; this is v/);
    }
  });

  describe('over HTTP', () => {
    let server: Server;
    let url = '';
    beforeAll(async () => {
      server = createServer((request, response) => {
        if (request.url === '/p/datapackage.json')
          response.end(
            JSON.stringify({
              resources: [
                { name: 'r', path: 'r.csv', schema: { fields: [{ name: 'n', type: 'integer' }] } },
              ],
            }),
          );
        else if (request.url === '/p/r.csv') response.end('n\n1\nbad\n');
        else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      url =
        typeof address === 'object' && address
          ? `http://127.0.0.1:${String(address.port)}/p/datapackage.json`
          : '';
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('validates a package by URL', async () => {
      const { code, out } = await dataAsync(['validate', url]);
      expect(code).toBe(1);
      expect(out).toContain('r\t3\tn\ttype-error');
    });
  });

  /**
   * Runs data validate and sends the signal once it says it began on the resource, not after
   * a guess at how long starting takes.
   */
  function signalWhenBegun(
    args: string[],
    resource: string,
    signal: NodeJS.Signals,
  ): Promise<{ code: number | null; err: string }> {
    let sent = false;
    return runBin(['validate', ...args, '--debug'], {
      env: { CI: 'true' },
      onErr: (err, child) => {
        if (sent || !err.includes(`debug: ${resource}: validating\n`)) return;
        sent = true;
        child.kill(signal);
      },
    });
  }

  it('exits 130 on Ctrl-C in the middle of a large file', async () => {
    const dir = folder({});
    await writeRows(join(dir, 'big.csv'), 60, row);
    const { code, err } = await signalWhenBegun([join(dir, 'big.csv')], 'big', 'SIGINT');
    expect(code).toBe(130);
    expect(err).toContain('interrupted');
  });

  it('ends at SIGTERM with exit 143 while a pattern is checked on a small package', async () => {
    // Under the 8 MB that are otherwise validated in the calling thread: a pattern sends it
    // to a worker, which the signal ends. Seconds of matching, for a signal sent at once.
    const dir = backtrackingPackage(400_000);
    const { code, err } = await signalWhenBegun([dir, '--limit-errors', '0'], 't', 'SIGTERM');
    expect(code).toBe(143);
    expect(err).toContain('error: terminated');
  });

  it('keeps memory bounded on a file larger than the memory budget', async () => {
    const dir = folder({});
    const csv = join(dir, 'big.csv');
    await writeRows(csv, 300, row);
    const descriptor = {
      resources: [
        {
          name: 'big',
          path: 'big.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name' },
              { name: 'amount', type: 'number' },
              { name: 'day', type: 'date' },
            ],
          },
        },
      ],
    };
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(join(dir, 'datapackage.json'), JSON.stringify(descriptor)),
    );
    // The CLI's own entry (run with isolation, as bin/data does), measured in one process.
    const script = `const { run } = await import(${JSON.stringify(join(ROOT, 'packages/cli/dist/cli.js'))});
      const { memoryIO } = await import(${JSON.stringify(join(ROOT, 'packages/cli/dist/output/io.js'))});
      const io = memoryIO();
      const code = await run(['--json', 'validate', ${JSON.stringify(dir)}], io, { isolate: true });
      const report = JSON.parse(io.out());
      console.log(JSON.stringify({ valid: code === 0 && report.valid, rows: report.tasks[0].stats.rows, rss: process.resourceUsage().maxRSS / 1024 }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const result = JSON.parse(child.stdout) as { valid: boolean; rows: number; rss: number };
    expect(result.valid).toBe(true);
    expect(result.rows).toBeGreaterThan(5_000_000);
    expect(result.rss).toBeLessThan(256);
  }, 120_000);
});

describe('a reader that goes away', () => {
  /** Runs data with its stdout in a real pipe to `head -1`, and its stderr kept apart. */
  function intoHead(args: string[]): { code: number; err: string; first: string } {
    const quoted = args.map((arg) => `'${arg}'`).join(' ');
    const script = `'${process.execPath}' '${BIN}' ${quoted} 2>"$ERR" | head -1; echo "code=\${PIPESTATUS[0]}"`;
    const errFile = join(ROOT, 'test-output', `epipe-${String(process.pid)}.txt`);
    spawnSync('mkdir', ['-p', join(ROOT, 'test-output')]);
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ERR: errFile },
      // A hang is a failure of its own, not a stalled test run.
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    const err = spawnSync('cat', [errFile], { encoding: 'utf8' }).stdout;
    const [first = '', code = ''] = run.stdout.trimEnd().split('\n');
    return { code: Number(code.replace('code=', '')), err, first };
  }

  const manyErrors = () =>
    folder({
      't.csv': `id\n${Array.from({ length: 50_000 }, (_, index) => `x${String(index)}`).join('\n')}\n`,
      'datapackage.json': {
        name: 'many-errors',
        resources: [
          { name: 't', path: 't.csv', schema: { fields: [{ name: 'id', type: 'integer' }] } },
        ],
      },
    });

  it.each([[[]], [['--json']], [['--format', 'github']]])(
    'ends quietly, exit 141, when head has read what it wanted (%j)',
    (flags) => {
      const run = intoHead(['validate', manyErrors(), '--limit-errors', '0', ...flags]);
      expect(run.first).not.toBe('');
      expect(run.code).toBe(141);
      expect(run.err).not.toMatch(/EPIPE|node:internal|^\s+at |interrupted/m);
    },
  );

  it('streams a large table: data cat | head ends once head has read its line', () => {
    const rows = Array.from({ length: 400_000 }, (_, index) => `${String(index)},x`).join('\n');
    const dir = folder({ 'big.csv': `id,v\n${rows}\n` });
    const run = intoHead(['cat', join(dir, 'big.csv'), '--format', 'ndjson']);
    expect(run.first).toBe('{"id":0,"v":"x"}');
    expect(run.code).toBe(141);
    // As SIGPIPE ends other programs: no "error: interrupted".
    expect(run.err).toBe('');
  });

  it('ends quietly when the help is cut short', () => {
    const run = intoHead(['validate', '--help']);
    expect(run.first).toContain('Usage: data validate');
    expect([0, 141]).toContain(run.code);
    expect(run.err).toBe('');
  });
});

const dataWithErr = dataAsync;

describe('remote packages that cannot be reached', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/down/datapackage.json') return response.writeHead(503).end();
      if (request.url === '/pkg/datapackage.json')
        return response.end(JSON.stringify({ resources: [{ name: 'gone', path: 'gone.csv' }] }));
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
  });
  afterAll(() => server.close());

  it('exits 3 with a hint when nothing answers, or the server fails: an outage is no verdict', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = String((closed.address() as { port: number }).port);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    for (const url of [
      `http://127.0.0.1:${port}/datapackage.json`,
      `${base}/down/datapackage.json`,
    ]) {
      const run = await dataWithErr(['validate', url]);
      expect(run.code).toBe(3);
      expect(run.err).toContain('no verdict on the data');
      expect(run.err).toContain('hint:');
    }
  });

  it('exits 2 for a descriptor that is not there, and 1 for a package whose resource is not', async () => {
    const missing = await dataWithErr(['validate', `${base}/nothing/datapackage.json`]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('answered 404');
    const dangling = await dataWithErr(['validate', `${base}/pkg/datapackage.json`]);
    expect(dangling.code).toBe(1);
    expect(dangling.out).toContain('HTTP 404');
  });
});
