import { describe, expect, it } from 'vitest';
import { cacheDir, cacheFile } from '../../packages/core/src/code-cache.js';
import { guessCommand } from '../../packages/cli/src/start.js';

describe('the code cache of bin/data', () => {
  it.each([
    [['validate', 'examples/cities'], 'validate'],
    [['--json', '--api', 'http://127.0.0.1:9', 'get', 'ada/x'], 'get'],
    [['push', '.'], 'push'],
    [['ada/x'], undefined],
    [['../escape'], undefined],
    [['--help'], 'none'],
    [[], 'none'],
  ])('keys %j by %s', (argv, expected) => {
    expect(guessCommand(argv)).toBe(expected);
  });

  it('lives in DATA_CACHE_DIR, else the XDG cache folder, else ~/.cache', () => {
    expect(cacheDir({ DATA_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/data');
    expect(cacheDir({ HOME: '/h' })).toBe('/h/.cache/data');
  });

  it('is one file per bundle, build, Node.js, architecture and command', () => {
    const file = cacheFile('/c', 'cli', '0123456789abcdef', 'validate');
    expect(file).toBe(
      `/c/code/cli-0123456789abcdef-${process.version}-${process.arch}-validate.bin`,
    );
    expect(cacheFile('/c', 'cli', '0123456789abcdef', 'get')).not.toBe(file);
    expect(cacheFile('/c', 'cli', 'fedcba9876543210', 'validate')).not.toBe(file);
    expect(cacheFile('/c', 'worker', '0123456789abcdef', 'validate')).not.toBe(file);
  });
});
