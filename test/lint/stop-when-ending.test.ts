/**
 * The servers a test run starts for all its files are stopped when the run is ended by a
 * signal, as by Ctrl-C or a CI job's time limit, not only when it ends by itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const helper = pathToFileURL(join(import.meta.dirname, '../helpers/stop-when-ending.ts')).href;

/** A process that stands in for a test run holding a server: it writes `marker` when stopping it. */
function holder(marker: string, listenerOfItsOwn: boolean) {
  const code = `
    import { writeFileSync } from 'node:fs';
    import { stopWhenEnding } from ${JSON.stringify(helper)};
    stopWhenEnding(() => writeFileSync(${JSON.stringify(marker)}, 'stopped'));
    ${listenerOfItsOwn ? "process.on('SIGTERM', () => process.exit(7));" : ''}
    const timer = setInterval(() => {}, 60_000);
    process.on('disconnect', () => clearInterval(timer));
    process.send('ready');
  `;
  return spawn(
    process.execPath,
    ['--experimental-strip-types', '--input-type=module', '-e', code],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
}

describe('stopWhenEnding', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    it(`stops the server when the run is ended by ${signal}, and ends as the signal would`, async () => {
      dir = mkdtempSync(join(tmpdir(), 'stop-when-ending-'));
      const marker = join(dir, 'stopped');
      const child = holder(marker, false);
      try {
        await once(child, 'message');
        const ended = once(child, 'exit');
        child.kill(signal);
        const [code, by] = (await ended) as [number | null, NodeJS.Signals | null];
        expect(existsSync(marker)).toBe(true);
        expect({ code, by }).toEqual({ code: null, by: signal });
      } finally {
        child.kill('SIGKILL');
      }
    });

  it('leaves the ending to a listener the run has of its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'stop-when-ending-'));
    const marker = join(dir, 'stopped');
    const child = holder(marker, true);
    try {
      await once(child, 'message');
      const ended = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await ended) as [number | null];
      expect(existsSync(marker)).toBe(true);
      expect(code).toBe(7);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stops the server when the run ends by itself', async () => {
    dir = mkdtempSync(join(tmpdir(), 'stop-when-ending-'));
    const marker = join(dir, 'stopped');
    const child = holder(marker, false);
    try {
      await once(child, 'message');
      const ended = once(child, 'exit');
      child.disconnect();
      const [code] = (await ended) as [number | null];
      expect(existsSync(marker)).toBe(true);
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
