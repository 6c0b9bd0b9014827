import { describe, expect, it } from 'vitest';
import { commandNamed } from '../../packages/cli/src/commands/index.js';

describe('commandNamed', () => {
  it.each([
    [['validate', 'examples/cities'], 'validate'],
    [['--json', 'validate'], 'validate'],
    [['--api', 'http://127.0.0.1:9', 'get', 'ada/x'], 'get'],
    [['--api=http://127.0.0.1:9', 'info', 'ada/x'], 'info'],
    [['push', '.'], 'publish'],
    [['serve', 'migrate'], 'serve'],
    [['help', 'validate'], undefined],
    [['completion', 'bash'], undefined],
    [['valdate'], undefined],
    [['--help'], undefined],
    [[], undefined],
  ])('%j loads %s', (argv, expected) => {
    expect(commandNamed(argv)).toBe(expected);
  });
});
