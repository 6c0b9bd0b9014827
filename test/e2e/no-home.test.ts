/**
 * data run by a user the system has no record of and with no HOME, as a container run
 * under an arbitrary user id is: what needs no folder works, the rest says what to set.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const UNKNOWN_USER = '4242';

const canSwitchUser = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

function asUnknownUser(args: string[]) {
  const run = spawnSync(
    'setpriv',
    [
      '--reuid',
      UNKNOWN_USER,
      '--regid',
      UNKNOWN_USER,
      '--clear-groups',
      process.execPath,
      BIN,
      ...args,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe.skipIf(!canSwitchUser && !process.env.CI)('a user with no home folder', () => {
  it('validates, with no code cache to keep', () => {
    expect(canSwitchUser).toBe(true);
    const run = asUnknownUser(['--debug', 'validate', 'examples/cities']);
    expect(run.stderr).not.toMatch(/code cache/);
    expect(run.stdout).toMatch(/valid: 2 resources/);
    expect(run.status).toBe(0);
  });

  it('is told to set HOME or DATA_CONFIG_DIR where settings are read or written, exit 2', () => {
    for (const args of [
      ['config', 'list'],
      ['config', 'set', 'api', 'http://127.0.0.1:9'],
    ]) {
      const run = asUnknownUser(args);
      expect(run.stderr).toMatch(/this user has no home folder/);
      expect(run.stderr).toMatch(/set HOME, or DATA_CONFIG_DIR/);
      expect(run.status).toBe(2);
    }
  });

  it('reaches the hub it is given without reading settings', () => {
    const run = asUnknownUser(['--api', 'http://127.0.0.1:9', 'info', 'ada/x']);
    expect(run.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
    expect(run.status).toBe(3);
  });
});
