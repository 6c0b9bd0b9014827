/**
 * The spinner on a terminal's stderr: cleared at Ctrl-C and never drawn again, however late a
 * step still reports while it winds down; how long it has run shown once a step is quiet.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../packages/cli/src/cli.js';
import { createContext } from '../../packages/cli/src/context.js';
import { memoryIO } from '../../packages/cli/src/output/io.js';
import { publishProgress } from '../../packages/cli/src/output/publish.js';
import { startProgress } from '../../packages/cli/src/output/spinner.js';
import { fileDigest } from '../../packages/core/src/files/digest.js';
import { folder } from '../helpers/fixtures.js';

function terminal() {
  const io = memoryIO({ tty: true });
  const controller = new AbortController();
  const ctx = createContext(io, controller.signal, { json: false, color: false, debug: false });
  return { io, controller, ctx };
}

describe('the progress line', () => {
  it('is cleared at Ctrl-C and never drawn again after it', async () => {
    const { io, controller, ctx } = terminal();
    const progress = await startProgress(ctx, 'uploading 1 MB of 10 MB');
    controller.abort('SIGINT');
    const atStop = io.err().length;
    expect(io.err()).toContain('1 MB of 10 MB');
    // A transfer winding down still reports; the command then says it was interrupted.
    progress.update('uploading 2 MB of 10 MB');
    ctx.io.stderr.write('error: interrupted\n');
    progress.stop();
    expect(io.err().slice(atStop)).toBe('error: interrupted\n');
    expect(io.err()).not.toContain('2 MB');
  });

  it('draws nothing on a pipe, in --json or in CI', async () => {
    const io = memoryIO({ tty: false });
    const ctx = createContext(io, new AbortController().signal, {
      json: false,
      color: false,
      debug: false,
    });
    const progress = await startProgress(ctx, 'fetching');
    progress.update('fetching 1 MB');
    progress.stop();
    expect(io.err()).toBe('');
  });
});

describe('publishing while it hashes', () => {
  it('reports the bytes hashed of the file as it reads it', async () => {
    const dir = folder({ 'big.csv': 'x'.repeat(3 * 1024 * 1024 + 5) });
    const read: number[] = [];
    const { length } = await fileDigest(`${dir}/big.csv`, undefined, (bytes) => read.push(bytes));
    expect(read.length).toBeGreaterThan(1);
    expect(read.at(-1)).toBe(length);
  });

  it('shows the file, the share hashed and the bytes on the progress line', () => {
    const lines: string[] = [];
    const show = publishProgress(
      (line) => lines.push(line),
      () => undefined,
    );
    show({ type: 'hashing', path: 'big.csv' });
    show({ type: 'hashing', path: 'big.csv', read: 50 * 1024 * 1024, bytes: 200 * 1024 * 1024 });
    expect(lines[0]).toBe('hashing big.csv');
    expect(lines[1]).toMatch(/^hashing big\.csv · 25% · 52\.4 MB of 210 MB/);
  });
});

describe('data diff on a terminal', () => {
  const sides = () => {
    const table = (rows: string) => ({
      'prices.csv': `id,price\n${rows}`,
      'datapackage.json': {
        name: 'p',
        resources: [{ name: 'prices', path: 'prices.csv' }],
      },
    });
    return [folder(table('1,2\n')), folder(table('1,3\n'))] as const;
  };

  it('shows what it compares while it reads and matches the tables', async () => {
    const [a, b] = sides();
    const io = memoryIO({ tty: true });
    expect(await run(['diff', a, b], io)).toBe(1);
    expect(io.err()).toContain(`comparing ${a} with ${b}: prices`);
  });

  it('draws nothing on a pipe', async () => {
    const [a, b] = sides();
    const io = memoryIO();
    expect(await run(['diff', a, b], io)).toBe(1);
    expect(io.err()).toBe('');
  });
});
