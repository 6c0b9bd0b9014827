/**
 * data diff on a terminal: its progress line shows the table, the share done, the rows
 * read with their rate and the time left, then the parts matched, and is cleared before
 * the result. On a pipe and with --json nothing but the result is written.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder, pricesSchema } from '../helpers/fixtures.js';

function side(rows: string): string {
  return folder({
    'prices.csv': `id,price\n${rows}`,
    'datapackage.json': {
      name: 'p',
      resources: [
        {
          name: 'prices',
          path: 'prices.csv',
          schema: pricesSchema(),
        },
      ],
    },
  });
}

/** The screen's lines as the terminal shows them: each carriage return or clear starts over. */
function drawn(stderr: string): string[] {
  // eslint-disable-next-line no-control-regex -- the terminal's own codes are what is read
  return stderr.split(/\r|\n|\u001b\[\d*[GK]/).filter((line) => line.includes('comparing'));
}

describe('data diff progress', () => {
  it('shows rows read, rate and time left on a terminal, then clears the line', async () => {
    const a = side('1,2\n2,3\n');
    const b = side('1,2\n2,4\n3,5\n');
    // A second passes between any two looks at the clock: every update is drawn, with a rate.
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (now += 1_000));
    const { code, out, err } = await runCli(['--no-color', 'diff', a, b], { tty: true });
    expect(code).toBe(1);
    const lines = drawn(err);
    const heading = `comparing ${a} with ${b}: prices (1/1)`;
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `${heading.replace(/[()/]/g, '\\$&')} · \\d+% · \\d rows read · \\d+ rows?/s · \\d+ s left`,
        ),
      ),
    );
    expect(lines.some((line) => line.includes(`${heading} · 100% · 5 rows read · matching`))).toBe(
      true,
    );
    // The line is cleared when the diff is done: the last thing on stderr wipes it.
    // eslint-disable-next-line no-control-regex -- the terminal's own codes are what is read
    expect(err).toMatch(/\u001b\[(2K|0?K)(\u001b\[\d*G)?(\u001b\[\?25h)?$/);
    expect(out).toContain('+1 row');
    expect(out).not.toContain('comparing');
  });

  it('writes no progress on a pipe', async () => {
    const { code, err } = await runCli(['diff', side('1,2\n'), side('1,3\n')]);
    expect(code).toBe(1);
    expect(err).toBe('');
  });

  it('writes exactly one JSON document with --json, even on a terminal', async () => {
    const { code, out, err } = await runCli(['--json', 'diff', side('1,2\n'), side('1,3\n')], {
      tty: true,
    });
    expect(code).toBe(1);
    expect(err).toBe('');
    const diff = JSON.parse(out) as { resources: { rows: { changed: number } }[] };
    expect(diff.resources[0]?.rows.changed).toBe(1);
  });
});
