import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHub, type RunningHub, type StartOptions } from '../../src/hub/server.js';

export const EXAMPLES = join(import.meta.dirname, '../../examples');

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'data-hub-'));
}

export async function withHub<T>(
  options: Partial<StartOptions>,
  run: (hub: RunningHub) => Promise<T>,
): Promise<T> {
  const dataDir = options.dataDir ?? tempDir();
  const hub = await startHub({ log: () => undefined, ...options, dataDir });
  try {
    return await run(hub);
  } finally {
    await hub.close();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

export * from './protocol.js';

export const CITIES_DIR = join(EXAMPLES, 'cities');
