/**
 * Downloads of 1 GB over loopback by the two HTTP clients `data get` could use, each through
 * the same downloadFile (16 KB writes), next to curl, in one run: round after round, each in
 * a fresh process, so that a noisy neighbour weighs on all three alike. Prints MB/s (median
 * and spread over the rounds) and each one's share of curl's rate.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, writeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './servers.ts';

const DIR = '.bench/transport';
const FILE = join(DIR, 'big.bin');
const BYTES = 1024 * 1024 * 1024;
const ROUNDS = Number(process.argv[2] ?? 5);
const MB = 1024 * 1024;

function writeBigFile(): void {
  if (existsSync(FILE)) return;
  mkdirSync(DIR, { recursive: true });
  const block = Buffer.alloc(4 * MB);
  for (let index = 0; index < block.length; index++) block[index] = (index * 2_654_435_761) >>> 24;
  const fd = openSync(FILE, 'w');
  for (let written = 0; written < BYTES; written += block.length) writeSync(fd, block);
  closeSync(fd);
}

function curl(url: string, target: string): number {
  rmSync(target, { force: true });
  const started = performance.now();
  const child = spawnSync('curl', ['-sS', '-o', target, url]);
  if (child.status !== 0) throw new Error(`curl failed: ${child.stderr.toString()}`);
  return (performance.now() - started) / 1000;
}

function ours(transport: string, url: string, target: string): { seconds: number; rssMB: number } {
  const child = spawnSync(process.execPath, ['bench/download-one.ts', transport, url, target], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`${transport} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { seconds: number; rssMB: number };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

writeBigFile();
const server = await startServer(['bench/plain-server.ts', DIR]);
const url = `${server.url}/big.bin`;
const target = join(DIR, 'out.bin');
const rates: Record<string, number[]> = { curl: [], lending: [], undici: [] };
const rss: Record<string, number[]> = { lending: [], undici: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    rates.curl?.push(BYTES / MB / curl(url, target));
    for (const transport of ['lending', 'undici']) {
      const run = ours(transport, url, target);
      rates[transport]?.push(BYTES / MB / run.seconds);
      rss[transport]?.push(run.rssMB);
    }
  }
} finally {
  server.child.kill();
  rmSync(target, { force: true });
}
console.log(
  `1 GB over loopback, ${String(ROUNDS)} rounds, node ${process.version}; MB/s median (min–max)`,
);
const curlRate = median(rates.curl ?? []);
for (const [name, values] of Object.entries(rates)) {
  const share =
    name === 'curl'
      ? ''
      : `  ${((median(values) / curlRate) * 100).toFixed(0)}% of curl, by round ${values.map((value, index) => `${((value / (rates.curl?.[index] ?? 1)) * 100).toFixed(0)}%`).join(' ')}`;
  const memory = rss[name] ? `, peak RSS ${Math.max(...(rss[name] ?? [])).toFixed(0)} MB` : '';
  console.log(
    `${name.padEnd(8)} ${median(values).toFixed(0).padStart(6)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})${share}${memory}`,
  );
}
const ratio = median(rates.undici ?? []) / median(rates.lending ?? []);
console.log(
  `undici reaches ${(ratio * 100).toFixed(0)}% of the hand-written client's rate (threshold to return to it: 90%)`,
);
