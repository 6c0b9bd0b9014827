import { createHash } from 'node:crypto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, expect, it } from 'vitest';
import { browserLogin } from '../hub/protocol.js';
import { startServe } from '../helpers/serve.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const work = mkdtempSync(join(tmpdir(), 'data-interrupt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function publish(
  api: string,
  token: string,
): {
  child: ChildProcessWithoutNullStreams;
  done: Promise<{ code: number | null; out: string; err: string }>;
} {
  const child = spawn(process.execPath, [BIN, '--json', 'publish', join(work, 'pkg')], {
    env: {
      ...process.env,
      DATA_API: api,
      DATA_TOKEN: token,
      DATA_CONFIG_DIR: join(work, 'config'),
      NO_COLOR: '1',
      CI: 'true',
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return {
    child,
    done: new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err }))),
  };
}

function objects(): string[] {
  return readdirSync(join(work, 'hub', 'objects'));
}

/** The objects the hub counts as uploaded: bytes are held only once they are in place. */
function held(): string[] {
  const db = new DatabaseSync(join(work, 'hub', 'hub.sqlite'), { readOnly: true });
  try {
    return (db.prepare('select key from holdings').all() as { key: string }[]).map(
      (row) => row.key,
    );
  } finally {
    db.close();
  }
}

it('resumes a publish broken off by a killed hub, uploading only the missing files', async () => {
  mkdirSync(join(work, 'pkg', 'data'), { recursive: true });
  writeFileSync(join(work, 'pkg', 'data', 'small.csv'), 'id,name\n1,a\n');
  for (const name of ['one', 'two'])
    writeFileSync(join(work, 'pkg', 'data', `${name}.bin`), Buffer.alloc(300 * 1024 * 1024, name));
  const resources = [
    { name: 'small', path: 'data/small.csv' },
    { name: 'one', path: 'data/one.bin' },
    { name: 'two', path: 'data/two.bin' },
  ];
  writeFileSync(
    join(work, 'pkg', 'datapackage.json'),
    JSON.stringify({ name: 'interrupted', resources }),
  );

  const hubArgs = ['--data-dir', join(work, 'hub')];
  const first = await startServe(hubArgs);
  const port = Number(new URL(first.url).port);
  const token = await browserLogin(first.url);
  const attempt = publish(first.url, token);
  // Killed once small.csv is counted as uploaded and another file is on its way (the
  // descriptor, as small, may be counted first).
  const smallKey = `${createHash('md5').update('id,name\n1,a\n').digest('hex')}.csv`;
  while (!held().includes(smallKey) || objects().length < 2)
    await new Promise((resolve) => setTimeout(resolve, 10));
  first.child.kill('SIGKILL');
  const broken = await attempt.done;
  expect(broken.code).toBe(3);
  expect(objects().length).toBeLessThan(4);
  expect(objects().every((key) => /^[0-9a-f]{32}\.(csv|json|bin)$/.test(key))).toBe(true);
  // Killed between placing a file and recording it, the hub has it but does not count it.
  const stored = held();
  expect(stored.length).toBeGreaterThan(0);
  expect(stored.length).toBeLessThan(4);
  expect(objects()).toEqual(expect.arrayContaining(stored));

  const second = await startServe(hubArgs, port);
  try {
    const again = await publish(second.url, token).done;
    expect(again.code).toBe(0);
    const result = JSON.parse(again.out) as {
      state: string;
      uploaded: string[];
      skipped: string[];
    };
    expect(result.state).toBe('SUCCEEDED');
    expect(result.skipped.length).toBe(stored.length);
    expect(result.uploaded.length).toBe(4 - stored.length);
    expect(result.uploaded).not.toContain('data/small.csv');
  } finally {
    // Its folder is removed after the test: the hub must have stopped writing to it.
    await second.stop();
  }
}, 120_000);
