/**
 * The hub under heavy inputs from the outside: for each, the hub's peak resident memory
 * (sampled from /proc every 50 ms, worker threads included) and the slowest answer another
 * reader got meanwhile (a GET every 100 ms, from a process of its own). Targets: under 512 MB, under one second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { startServer } from './servers.ts';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  authorizeUploads,
  browserLogin,
  publish,
  serviceToken,
  uploadForm,
  waitForState,
  type AuthorizeReply,
} from '../test/hub/protocol.ts';

const MB = 1024 * 1024;

function start(dataDir: string, config?: string): Promise<{ child: ChildProcess; url: string }> {
  const args = ['bin/data', 'serve', '--port', '0', '--data-dir', dataDir];
  return startServer(config ? [...args, '--config', config] : args);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Runs `load` while sampling the hub's memory and a reader's answer times. */
async function measure(
  pid: number,
  readUrl: string,
  load: () => Promise<string>,
): Promise<{ outcome: string; peakMb: number; worstMs: number; seconds: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 50);
  const reader = spawn(process.execPath, ['bench/reader.ts', readUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  reader.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  const outcome = await load();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  reader.kill('SIGTERM');
  await once(reader, 'exit');
  const worstMs = Number(printed.trim());
  return { outcome, peakMb, worstMs, seconds };
}

async function writeLines(path: string, write: (out: NodeJS.WritableStream) => Promise<void>) {
  const out = createWriteStream(path);
  await write(out);
  out.end();
  await once(out, 'finish');
}

async function publishFolder(url: string, jwt: string, dir: string): Promise<string> {
  const state = await waitForState(url, (await publish(url, jwt, dir)).flowId, jwt);
  return `${state.state}: ${state.error_log.slice(-1).join('') || 'ok'}`.slice(0, 100);
}

const work = mkdtempSync(join(tmpdir(), 'data-bench-limits-'));
const hub = await start(join(work, 'hub'));
const pid = hub.child.pid ?? 0;
try {
  const jwt = await browserLogin(hub.url);
  await waitForState(hub.url, (await publish(hub.url, jwt, 'examples/cities')).flowId);
  const readUrl = `${hub.url}/ada/world-cities/datapackage.json`;
  const results: [string, Awaited<ReturnType<typeof measure>>][] = [];

  results.push([
    '20,000 made-up ?v= values',
    await measure(pid, readUrl, async () => {
      const statuses = new Map<number, number>();
      for (let index = 0; index < 20_000; index += 50) {
        const batch = Array.from({ length: 50 }, (_, offset) => {
          const n = index + offset;
          const v = n % 2 === 0 ? `${'0'.repeat(n % 40)}1` : String(n + 2);
          return fetch(`${readUrl}?v=${v}`).then(async (response) => {
            await response.arrayBuffer();
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          });
        });
        await Promise.all(batch);
      }
      return [...statuses].map(([status, count]) => `${String(count)}×${String(status)}`).join(' ');
    }),
  ]);

  const longLine = join(work, 'long-line');
  mkdirSync(longLine);
  await writeLines(join(longLine, 'line.csv'), async (out) => {
    out.write('a\n');
    const block = Buffer.alloc(MB, 'x');
    for (let index = 0; index < 500; index++) if (!out.write(block)) await once(out, 'drain');
    out.write('\n');
  });
  writeFileSync(
    join(longLine, 'datapackage.json'),
    JSON.stringify({ name: 'long-line', resources: [{ name: 'line', path: 'line.csv' }] }),
  );
  // The same line with the row limit lifted: only the processing worker's heap cap holds.
  const config = join(work, 'no-row-limit.json');
  writeFileSync(config, JSON.stringify({ limits: { rowChars: 2 ** 30 } }));
  const capped = await start(join(work, 'capped'), config);
  try {
    const cappedJwt = await browserLogin(capped.url);
    await waitForState(
      capped.url,
      (await publish(capped.url, cappedJwt, 'examples/cities')).flowId,
    );
    results.push([
      '500 MB line, heap cap only',
      await measure(capped.child.pid ?? 0, `${capped.url}/ada/world-cities/datapackage.json`, () =>
        publishFolder(capped.url, cappedJwt, longLine),
      ),
    ]);
  } finally {
    capped.child.kill('SIGINT');
  }
  results.push([
    '500 MB single-line CSV',
    await measure(pid, readUrl, () => publishFolder(hub.url, jwt, longLine)),
  ]);

  const wide = join(work, 'wide');
  mkdirSync(wide);
  const columns = Array.from({ length: 100_000 }, (_, index) => `c${String(index)}`);
  await writeLines(join(wide, 'wide.csv'), (out) => {
    out.write(`${columns.join(',')}\n`);
    for (let row = 0; row < 20; row++)
      out.write(`${columns.map((_, index) => String(index + row)).join(',')}\n`);
    return Promise.resolve();
  });
  writeFileSync(
    join(wide, 'datapackage.json'),
    JSON.stringify({ name: 'wide', resources: [{ name: 'wide', path: 'wide.csv' }] }),
  );
  results.push([
    '100,000-column CSV',
    await measure(pid, readUrl, () => publishFolder(hub.url, jwt, wide)),
  ]);

  results.push([
    '100,000-resource descriptor',
    await measure(pid, readUrl, async () => {
      const bytes = Buffer.from('a\n1\n');
      const rawstore = await serviceToken(hub.url, jwt, 'rawstore');
      const reply = (await (
        await authorizeUploads(hub.url, rawstore, new Map([['r.csv', bytes]]))
      ).json()) as AuthorizeReply;
      const entry = reply.filedata['r.csv'];
      if (entry && !entry.exists)
        await fetch(entry.upload_url, {
          method: 'POST',
          body: uploadForm(entry.upload_query, bytes),
        });
      const object = `${entry?.upload_url ?? ''}/${entry?.upload_query.key ?? ''}`;
      const resources = Array.from({ length: 100_000 }, (_, index) => ({
        name: `r${String(index)}`,
        path: 'r.csv',
      }));
      const source = await serviceToken(hub.url, jwt, 'source');
      const response = await fetch(`${hub.url}/source/upload`, {
        method: 'POST',
        headers: { 'Auth-Token': source.token },
        body: JSON.stringify({
          meta: { ownerid: source.userid, owner: 'ada', dataset: 'many' },
          inputs: [
            {
              kind: 'datapackage',
              url: object,
              parameters: {
                descriptor: { name: 'many', resources },
                'resource-mapping': { 'r.csv': object },
              },
            },
          ],
        }),
      });
      const body = (await response.json()) as { flow_id?: string; errors?: string[] };
      if (!body.flow_id) return `${String(response.status)} ${(body.errors ?? []).join('; ')}`;
      const state = await waitForState(hub.url, body.flow_id, jwt);
      return `${state.state}: ${state.error_log.slice(-1).join('')}`.slice(0, 100);
    }),
  ]);

  console.log(
    `${'heavy input'.padEnd(30)}${'hub peak RSS'.padStart(14)}${'slowest read'.padStart(14)}${'time'.padStart(9)}  outcome`,
  );
  for (const [label, result] of results)
    console.log(
      `${label.padEnd(30)}${`${result.peakMb.toFixed(0)} MB`.padStart(14)}${`${result.worstMs.toFixed(0)} ms`.padStart(14)}${`${result.seconds.toFixed(1)} s`.padStart(9)}  ${result.outcome}`,
    );
  const ok = results.every(([, result]) => result.peakMb < 512 && result.worstMs < 1000);
  console.log(ok ? 'targets met: under 512 MB, readers answered within 1 s' : 'targets NOT met');
} finally {
  hub.child.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
}
