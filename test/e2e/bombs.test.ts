import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeOdsBomb, writeXlsxTextBomb, xlsChainBomb, yamlAliasBomb } from '../helpers/bombs.js';
import { runBin } from '../helpers/cli.js';
import { folder } from '../helpers/fixtures.js';
import { writeOds } from '../helpers/workbook.js';

/** A generous bound: a bomb costs gigabytes unbounded, a bounded read far under this. */
const PEAK_MB = 400;

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * Runs the real bin/data; a module loaded before it writes the process's peak resident memory
 * (VmHWM, all its threads) to a file as it exits. `onErr` sees stderr as it grows.
 */
async function data(
  args: string[],
  onErr?: (err: string, child: ChildProcess) => void,
): Promise<{ code: number | null; out: string; err: string; peakMb: number }> {
  const dir = folder({});
  const peakFile = join(dir, 'peak');
  const hook = join(dir, 'peak.mjs');
  writeFileSync(
    hook,
    `import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  const kb = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  writeFileSync(${JSON.stringify(peakFile)}, kb);
});
`,
  );
  const run = await runBin(args, {
    nodeArgs: ['--import', pathToFileURL(hook).href],
    cwd: dir,
    env: { CI: 'true', DATA_CONFIG_DIR: join(dir, '.config') },
    onSpawn: (child) => started.push(child),
    ...(onErr ? { onErr } : {}),
  });
  const kb = Number(readFileSync(peakFile, { encoding: 'utf8', flag: 'a+' }) || NaN);
  return { ...run, peakMb: kb / 1024 };
}

/** The CPU time a running process has had, all its threads, in clock ticks (1/100 s). */
function cpuTicks(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${String(child.pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('bin/data on files that spell far more than they hold', () => {
  it('an 818-byte .ods of 17 billion cells: exit 1 at once, memory bounded', async () => {
    const dir = folder({});
    await writeOdsBomb(join(dir, 'bomb.ods'));
    expect(readFileSync(join(dir, 'bomb.ods')).length).toBeLessThan(1024);
    // No error limit: a sheet whose rows raise no error is read to its end.
    const { code, out, peakMb } = await data([
      'validate',
      join(dir, 'bomb.ods'),
      '--limit-errors',
      '0',
    ]);
    expect(code).toBe(1);
    expect(out).toContain('the sheet holds more than 100,000,000 cells');
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  it('an .xlsx of 600 MB of blanks in one text run: exit 1, memory bounded', async () => {
    const dir = folder({});
    await writeXlsxTextBomb(join(dir, 'blanks.xlsx'), 600_000_000, 'shared');
    const { code, out, peakMb } = await data(['validate', join(dir, 'blanks.xlsx')]);
    expect(code).toBe(1);
    expect(out).toContain('a cell holds more than 16,777,216 characters');
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  it('an .xlsx of 600 MB of short shared strings: exit 1, memory bounded', async () => {
    const dir = folder({});
    await writeXlsxTextBomb(join(dir, 'strings.xlsx'), 600_000_000, 'many');
    const { code, out, peakMb } = await data(['validate', join(dir, 'strings.xlsx')]);
    expect(code).toBe(1);
    // 16 times the file's 3.6 MB is under the least a workbook may share, 64 MB.
    expect(out).toContain("the workbook's shared text is larger than 64 MB, the most read here");
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  it('a 1.5 KB .xls whose sector chain names itself: exit 1, memory bounded', async () => {
    const dir = folder({ 'loop.xls': xlsChainBomb() });
    const { code, out, peakMb } = await data(['validate', join(dir, 'loop.xls')]);
    expect(code).toBe(1);
    expect(out).toContain('its sector chains loop or overlap');
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  it('a YAML alias bomb: exit 1 naming it, memory bounded', async () => {
    const dir = folder({ 'datapackage.yaml': yamlAliasBomb() });
    const { code, out, err, peakMb } = await data(['validate', dir]);
    expect(code).toBe(1);
    expect(out).toContain('an alias bomb');
    expect(err).not.toContain('bug');
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  it('a YAML descriptor of 2 MB of nested brackets: exit 1 naming it, memory bounded', async () => {
    const depth = 1_000_000;
    const dir = folder({
      'datapackage.yaml': `name: deep\nresources:\n  - name: a\n    data: ${'['.repeat(depth)}${']'.repeat(depth)}\n`,
    });
    const { code, out, peakMb } = await data(['validate', dir]);
    expect(code).toBe(1);
    expect(out).toContain('its brackets nest more than 256 levels deep');
    expect(peakMb).toBeLessThan(PEAK_MB);
  });

  for (const [signal, exit, said] of [
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated'],
  ] as const)
    it(`stops on ${signal} (exit ${String(exit)}) while a sheet within the limits costs a minute of checks`, async () => {
      // 589 bytes: a text of 40,000 characters on 100,000 rows, 4 billion characters, each
      // matched against a pattern: read in a worker, which the signal ends whatever it does.
      const dir = folder({
        'datapackage.json': {
          resources: [
            {
              name: 'heavy',
              path: 'heavy.ods',
              schema: { fields: [{ name: 't', constraints: { pattern: '(a?){60}a*' } }] },
            },
          ],
        },
      });
      await writeOds(
        join(dir, 'heavy.ods'),
        `<table:table-row><table:table-cell office:value-type="string"><text:p>t</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="100000"><table:table-cell office:value-type="string"><text:p>${'a'.repeat(40_000)}</text:p></table:table-cell></table:table-row>`,
      );
      let sent = false;
      let watching: NodeJS.Timeout | undefined;
      const { code, err, peakMb } = await data(['validate', dir, '--debug'], (text, child) => {
        if (watching || !text.includes('debug: heavy: validating\n')) return;
        // Busy, not merely begun: the signal goes once the sheet has cost a second of CPU.
        const begun = cpuTicks(child);
        watching = setInterval(() => {
          if (cpuTicks(child) - begun < 100) return;
          clearInterval(watching);
          sent = true;
          child.kill(signal);
        }, 20);
      }).finally(() => clearInterval(watching));
      expect(sent).toBe(true);
      expect(code).toBe(exit);
      expect(err).toContain(said);
      expect(peakMb).toBeLessThan(PEAK_MB);
    });
});

describe('bin/data on a descriptor of 300 MB at a URL', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const block = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      let closed = false;
      response.on('close', () => (closed = true));
      const more = (): void => {
        while (!closed && sent < 300) {
          sent++;
          if (!response.write(block)) {
            response.once('drain', more);
            return;
          }
        }
        if (!closed) response.end('{}');
      };
      response.write('{"resources": [] ');
      more();
      request.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    base = `http://127.0.0.1:${String(address.port)}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  for (const [args, name] of [
    [['validate'], 'datapackage.json'],
    [['validate'], 'datapackage.yaml'],
    [['info'], 'o/d'],
  ] as const) {
    it(`${args[0]} ${name}: exit 3 naming the cap, memory bounded`, async () => {
      const { code, err, peakMb } = await data([...args, `${base}/${name}`]);
      expect(code).toBe(3);
      expect(err).toContain('is larger than 16 MB');
      expect(peakMb).toBeLessThan(PEAK_MB);
    });
  }
});
