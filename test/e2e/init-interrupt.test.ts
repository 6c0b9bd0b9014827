import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const work = mkdtempSync(join(tmpdir(), 'data-init-interrupt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  // Large enough that its validation is still reading when the signal comes.
  mkdirSync(join(work, 'big'));
  const rows = Array.from(
    { length: 100_000 },
    (_, index) => `${String(index)},${String(index * 7)},name ${String(index)}`,
  ).join('\n');
  const block = `${rows}\n`;
  writeFileSync(join(work, 'big', 'rows.csv'), `id,value,label\n${block.repeat(30)}`);
});

/**
 * Runs `data --debug init` on the folder, sends `signal` once its progress says it is
 * checking the data, and resolves with how it ended.
 */
function interruptedInit(signal: NodeJS.Signals): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, '--debug', 'init', join(work, 'big')], {
    env: { ...process.env, DATA_CONFIG_DIR: join(work, 'config'), NO_COLOR: '1', CI: 'true' },
  });
  let err = '';
  let sent = false;
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    if (!sent && /rows: validating/.test(err)) {
      sent = true;
      child.kill(signal);
    }
  });
  child.stdout.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, err })));
}

describe('data init interrupted', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    it(`by ${signal} exits ${String(code)} and writes nothing`, async () => {
      const ended = await interruptedInit(signal);
      expect(ended.err).toMatch(/rows: validating/);
      expect(ended.code, ended.err).toBe(code);
      expect(readdirSync(join(work, 'big'))).toEqual(['rows.csv']);
    });
});
