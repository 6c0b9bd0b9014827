/** The table viewer's engine settings in the hub configuration (`viewer`), and a hub taking them. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readHubConfig } from '../../packages/hub/src/config.js';
import { DEFAULT_VIEWER } from '../../packages/hub/src/options.js';
import { tempDir, withHub } from './helpers.js';

function read(content: unknown) {
  const dir = tempDir();
  const file = join(dir, 'hub.json');
  writeFileSync(file, JSON.stringify(content));
  try {
    return readHubConfig(file, {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the table viewer’s settings', () => {
  it('are read from the hub configuration, each a whole number above 0', () => {
    expect(read({ viewer: { memoryMb: 512, queries: 4, querySeconds: 30 } }).viewer).toEqual({
      memoryMb: 512,
      queries: 4,
      querySeconds: 30,
    });
    expect(read({}).viewer).toBeUndefined();
    expect(() => read({ viewer: { memoryMB: 512 } })).toThrow(
      /the viewer has no setting "memoryMB" \(did you mean "memoryMb"\?\)|viewer.*memoryMB/,
    );
    for (const bad of [0, -1, 1.5, '256'])
      expect(() => read({ viewer: { threads: bad } })).toThrow(
        new ConfigError('viewer.threads must be a whole number above 0'),
      );
    expect(() => read({ viewer: 5 })).toThrow('viewer must be an object');
  });

  it('bound the hub’s engine, the others their defaults', async () => {
    await withHub({ viewer: { queries: 1, memoryMb: 128 } }, ({ hub }) => {
      expect(hub.viewer.options).toEqual({ ...DEFAULT_VIEWER, queries: 1, memoryMb: 128 });
      return Promise.resolve();
    });
  });
});
