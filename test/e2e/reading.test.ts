import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';

/** The real data with `input` on its standard input. */
function data(args: string[], input: string) {
  return runBin(args, { stdin: input, env: { CI: 'true' } });
}

describe('a table read from standard input', () => {
  it('is typed as validation infers it, as data cat --help says', async () => {
    const rows = Array.from(
      { length: 150 },
      (_, index) => `${String(index)},${String(index / 2)},true,x${String(index)}`,
    );
    const piped = await data(
      ['cat', '-', '--format', 'json'],
      `n,half,ok,name\n${rows.join('\n')}\n`,
    );
    expect(piped.code, piped.err).toBe(0);
    const values = JSON.parse(piped.out) as Record<string, unknown>[];
    expect(values).toHaveLength(150);
    expect(values[1]).toEqual({ n: 1, half: 0.5, ok: true, name: 'x1' });
    // Rows past those the schema was inferred from are typed by it too.
    expect(values[149]).toEqual({ n: 149, half: 74.5, ok: true, name: 'x149' });
  });
});
