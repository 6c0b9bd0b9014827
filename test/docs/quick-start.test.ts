/**
 * The README's quick start, run as written: its commands are read from README.md and run in
 * order by the real `data`, in a home folder of their own, against the hub the first of them
 * starts. Two things differ from a person's terminal, both outside the commands:
 * - the hub listens on a free port (`--port 0` is added) rather than 8080, which another
 *   program of this machine may hold, and the commands after it are given its address in
 *   DATA_API;
 * - the browser `data login` opens is a script named by BROWSER (which the system's
 *   xdg-open follows) that hands the address to this test, which signs in on the hub's page
 *   as "you", as a person would in the browser.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { submitSignInForm } from '../hub/protocol.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');

interface Step {
  line: string;
  words: string[];
  background: boolean;
}

/** The commands of the README's quick start: its first `sh` block, comments stripped. */
function quickStartSteps(): Step[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Quick start$/m)[1] ?? '';
  const block = /```sh\n([^]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '')
    .map((line) => {
      // The runner splits on spaces; a quoted word would need a shell.
      if (/["'`$\\|;<>]/.test(line)) throw new Error(`a quick-start line needs a shell: ${line}`);
      const background = line.endsWith('&');
      const words = line.replace(/&$/, '').trim().split(/\s+/);
      return { line, words, background };
    });
}

/** A folder of three CSV files, 1,204 rows in all, and a README that is not data. */
function writeMyData(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const shops = Array.from({ length: 4 }, (_, i) => `${String(i + 1)},Shop ${String(i + 1)}`);
  writeFileSync(join(folder, 'shops.csv'), ['shop_id,name', ...shops, ''].join('\n'));
  const products = Array.from(
    { length: 200 },
    (_, i) => `${String(i + 1)},Product ${String(i + 1)},kg`,
  );
  writeFileSync(join(folder, 'products.csv'), ['product_id,name,unit', ...products, ''].join('\n'));
  const prices = Array.from({ length: 1000 }, (_, i) =>
    [
      `2026-01-${String(1 + (i % 28)).padStart(2, '0')}`,
      String(1 + (i % 4)),
      String(1 + (i % 200)),
      String((1 + (i % 97)) / 4),
    ].join(','),
  );
  writeFileSync(
    join(folder, 'prices.csv'),
    ['date,shop_id,product_id,price', ...prices, ''].join('\n'),
  );
  writeFileSync(join(folder, 'README.md'), '# Prices\n\nWhat three shops asked in January.\n');
}

const home = mkdtempSync(join(tmpdir(), 'data-quick-start-'));
/** Every process the test starts, stopped at its end even when it fails. */
const started: ChildProcessWithoutNullStreams[] = [];
const hubs: ServeProcess[] = [];
let hook: Server | undefined;

afterAll(async () => {
  await Promise.all(hubs.map((hub) => hub.stop()));
  await Promise.all(
    started.map(
      (child) =>
        new Promise((stopped) => {
          if (child.exitCode !== null || child.signalCode !== null) stopped(null);
          child.on('exit', stopped);
          child.kill('SIGINT');
        }),
    ),
  );
  hook?.close();
  rmSync(home, { recursive: true, force: true });
});

/** A browser for `data login`: xdg-open runs BROWSER, which posts the address it got here. */
async function startBrowser(onOpen: (url: string) => Promise<void>): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      onOpen(body).then(
        () => response.writeHead(204).end(),
        (error: unknown) => response.writeHead(500).end(String(error)),
      );
    });
  });
  hook = server;
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const script = join(home, 'browser');
  const post = 'fetch(process.argv[1], { method: "POST", body: process.argv[2] })';
  writeFileSync(script, `#!/bin/sh\nexec '${process.execPath}' -e '${post}' '${address}' "$1"\n`);
  chmodSync(script, 0o755);
  return script;
}

/**
 * A terminal's environment with no desktop session (which xdg-open would ask to open the
 * address, ahead of BROWSER) and none of `data`'s own settings: only what the programs
 * need, the test's home, and `extra`.
 */
function terminalEnv(extra: Record<string, string>): Record<string, string> {
  const kept = ['PATH', 'TMPDIR', 'LANG', 'CI'].filter((name) => process.env[name] !== undefined);
  const env = Object.fromEntries(kept.map((name) => [name, process.env[name] ?? '']));
  return { ...env, HOME: home, NO_COLOR: '1', ...extra };
}

function run(
  words: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...words.slice(1)], { cwd, env });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end();
  return new Promise((done) => child.on('close', (code) => done({ code, out, err })));
}

describe("the README's quick start", () => {
  it('runs as written: a folder of CSV files to a published dataset and back', async () => {
    const steps = quickStartSteps();
    expect(steps.map(({ words }) => `${words[0] ?? ''} ${words[1] ?? ''}`)).toEqual([
      'data serve',
      'cd my-data',
      'data init',
      'data validate',
      'data login',
      'data publish',
      'data get',
      'data cat',
    ]);
    writeMyData(join(home, 'my-data'));
    const opened: string[] = [];
    const browser = await startBrowser(async (url) => {
      opened.push(url);
      const back = await submitSignInForm(url, 'you', 'you@example.org');
      await (await fetch(back)).text();
    });
    let cwd = home;
    let env = terminalEnv({ BROWSER: browser, DATA_KEYCHAIN: '0' });
    const outputs = new Map<string, string>();
    for (const step of steps) {
      const words = step.words.map((word) => word.replace(/^~(?=\/|$)/, home));
      if (words[0] === 'cd') {
        cwd = join(cwd, words[1] ?? '');
        continue;
      }
      expect(words[0], step.line).toBe('data');
      if (step.background) {
        expect(words.slice(0, 2), step.line).toEqual(['data', 'serve']);
        const hub = await startServe(words.slice(2), 0, { env, cwd });
        hubs.push(hub);
        env = { ...env, DATA_API: hub.url };
        continue;
      }
      const result = await run(words, cwd, env);
      expect({ line: step.line, code: result.code, err: result.err }).toMatchObject({
        code: 0,
      });
      outputs.set(words[1] ?? '', result.out);
    }
    const api = env.DATA_API ?? '';
    const written = JSON.parse(readFileSync(join(home, 'my-data/datapackage.json'), 'utf8')) as {
      name: string;
      resources: { name: string; schema: { primaryKey?: string[] } }[];
    };
    expect(written.name).toBe('my-data');
    expect(written.resources.map(({ name, schema }) => [name, schema.primaryKey])).toEqual([
      ['prices', undefined],
      ['products', ['product_id']],
      ['shops', ['shop_id']],
    ]);
    expect(outputs.get('validate')).toContain('valid: 3 resources, 1,204 rows checked');
    expect(opened).toHaveLength(1);
    expect(opened[0]?.startsWith(`${api}/auth/login/`)).toBe(true);
    expect(outputs.get('login')).toBe(`Logged in to ${api} as you\n`);
    expect(outputs.get('publish')).toContain(`${api}/you/my-data`);
    for (const file of ['prices.csv', 'products.csv', 'shops.csv'])
      expect(readFileSync(join(home, 'my-data/you/my-data', file), 'utf8')).toBe(
        readFileSync(join(home, 'my-data', file), 'utf8'),
      );
    expect(outputs.get('cat')?.split('\n').slice(0, 3)).toEqual([
      '| date | shop_id | product_id | price |',
      '| --- | --- | --- | --- |',
      '| 2026-01-01 | 1 | 1 | 0.25 |',
    ]);
  }, 120_000);
});
