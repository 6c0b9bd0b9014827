/**
 * Read throughput of `data serve` over loopback next to a plain node:http file server on
 * the same files: a 200 MB resource (MB/s, 4 downloads at a time) and a 1 KB resource
 * (requests/s, 64 requests in flight), each server in its own process.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePackage } from './generate.ts';
import { startServer } from './servers.ts';
import { browserLogin, publish, waitForState } from '../test/hub/protocol.ts';

const MB = 1024 * 1024;

const start = startServer;

function download(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
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

async function bigThroughput(url: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  await download(url, agent);
  const start = performance.now();
  const sizes = await Promise.all(Array.from({ length: 8 }, () => download(url, agent)));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return sizes.reduce((a, b) => a + b, 0) / MB / seconds;
}

async function smallRate(url: string, seconds = 4): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < until) {
      await download(url, agent);
      done++;
    }
  };
  for (let i = 0; i < 200; i++) await download(url, agent);
  done = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: 64 }, loop));
  agent.destroy();
  return done / ((performance.now() - start) / 1000);
}

const work = mkdtempSync(join(tmpdir(), 'data-bench-hub-'));
try {
  const big = await generatePackage(join('.bench', 'hub-200mb'), 2_700_000, false);
  const pkg = join(work, 'pkg');
  mkdirSync(join(pkg, 'data'), { recursive: true });
  copyFileSync(big, join(pkg, 'data', 'big.csv'));
  const small =
    'id,name\n' +
    Array.from({ length: 60 }, (_, i) => `${String(i)},item ${String(i)}`).join('\n') +
    '\n';
  writeFileSync(join(pkg, 'data', 'small.csv'), small.slice(0, 1024));
  const descriptor = {
    name: 'bench',
    resources: [
      { name: 'big', path: 'data/big.csv' },
      { name: 'small', path: 'data/small.csv' },
    ],
  };
  writeFileSync(join(pkg, 'datapackage.json'), JSON.stringify(descriptor));

  const hub = await start(['bin/data', 'serve', '--port', '0', '--data-dir', join(work, 'hub')]);
  const plain = await start(['bench/plain-server.ts', join(pkg, 'data')]);
  try {
    const jwt = await browserLogin(hub.url);
    const state = await waitForState(hub.url, (await publish(hub.url, jwt, pkg)).flowId);
    if (state.state !== 'SUCCEEDED')
      throw new Error(`publishing the bench package failed: ${state.error_log.join('; ')}`);
    const rows: [string, number, number][] = [];
    const hubBig = await bigThroughput(`${hub.url}/ada/bench/r/big.csv`);
    const plainBig = await bigThroughput(`${plain.url}/big.csv`);
    rows.push(['200 MB resource, MB/s', hubBig, plainBig]);
    const hubSmall = await smallRate(`${hub.url}/ada/bench/r/small.csv`);
    const plainSmall = await smallRate(`${plain.url}/small.csv`);
    rows.push(['1 KB resource, requests/s', hubSmall, plainSmall]);
    console.log(
      `${'loopback reads'.padEnd(28)}${'data serve'.padStart(12)}${'node:http'.padStart(12)}${'ratio'.padStart(9)}  (target >= 70%)`,
    );
    for (const [label, ours, baseline] of rows) {
      const ratio = ours / baseline;
      console.log(
        `${label.padEnd(28)}${ours.toFixed(0).padStart(12)}${baseline.toFixed(0).padStart(12)}${`${(ratio * 100).toFixed(0)}%`.padStart(9)}  ${ratio >= 0.7 ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    hub.child.kill('SIGINT');
    plain.child.kill();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
