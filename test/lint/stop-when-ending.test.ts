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
import { describe, expect, it } from 'vitest';

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

/**
 * Starts a stand-in, ends it with `end` once it holds its server, and tells how it ended and
 * whether it stopped the server.
 */
async function ending(
  listenerOfItsOwn: boolean,
  end: (child: ReturnType<typeof holder>) => void,
): Promise<{ stopped: boolean; code: number | null; by: NodeJS.Signals | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'stop-when-ending-'));
  const marker = join(dir, 'stopped');
  const child = holder(marker, listenerOfItsOwn);
  try {
    await once(child, 'message');
    const ended = once(child, 'exit');
    end(child);
    const [code, by] = (await ended) as [number | null, NodeJS.Signals | null];
    return { stopped: existsSync(marker), code, by };
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('stopWhenEnding', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    it(`stops the server when the run is ended by ${signal}, and ends as the signal would`, async () => {
      expect(await ending(false, (child) => child.kill(signal))).toEqual({
        stopped: true,
        code: null,
        by: signal,
      });
    });

  it('leaves the ending to a listener the run has of its own', async () => {
    expect(await ending(true, (child) => child.kill('SIGTERM'))).toEqual({
      stopped: true,
      code: 7,
      by: null,
    });
  });

  it('stops the server when the run ends by itself', async () => {
    expect(await ending(false, (child) => child.disconnect())).toEqual({
      stopped: true,
      code: 0,
      by: null,
    });
  });
});
