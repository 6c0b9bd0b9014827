/**
 * Text from data, a descriptor or a hub reaches a terminal with its control characters shown
 * as escapes: a cell cannot write the clipboard (OSC 52), clear the screen, move the cursor
 * or reorder a line. Data formats to a pipe stay byte for byte, and --json stays exact.
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder } from '../helpers/fixtures.js';
import { signedIn, userIds } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import { revisionsOf, searchResults } from '../helpers/msw/reads.js';

const API = HUB;
const CLIPBOARD = '\u001b]52;c;aGVsbG8=\u0007';
const CLEAR = '\u001b[2J';
const HOSTILE = `${CLIPBOARD}${CLEAR}\r\u202egnp.exe\u009b31m`;
const SHOWN = '\\x1b]52;c;aGVsbG8=\\x07\\x1b[2J\\r\\u202egnp.exe\\x9b31m';
/** What must not reach a terminal: C0 but tab and line feed, DEL, C1, bidi controls. */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Output with this program's own sequences taken out (its colours, and the spinner's cursor
 * moves on a terminal's stderr): then nothing unsafe is left.
 */
function leftover(text: string): RegExpExecArray | null {
  const own =
    // eslint-disable-next-line no-control-regex -- the sequences are what it removes
    /\u001b\[(?:1|2|22|31|32|33|36|39)m|\u001b\[\?(?:25[lh]|2026[hl])|\u001b\[[01]?[GK]/g;
  return UNSAFE.exec(text.replace(own, ''));
}

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function data(args: string[], tty = false) {
  return runCli(args, {
    tty,
    env: { DATA_API: API, DATA_TOKEN: 'token' },
    fetch: globalThis.fetch,
  });
}

function hostilePackage(): string {
  return folder({
    'data.csv': `id,na${CLEAR}me\n1,"${HOSTILE}"\nx${CLEAR},b\n`,
    'datapackage.json': {
      name: 'hostile',
      title: `Title ${HOSTILE}`,
      description: `first line\nsecond ${CLEAR}line`,
      resources: [
        {
          name: 'data',
          path: 'data.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: `na${CLEAR}me`, type: 'string' },
            ],
          },
        },
      ],
    },
  });
}

describe('text from data on a terminal or in a log', () => {
  it.each([
    ['validate', false],
    ['validate', true],
    ['info', false],
    ['info', true],
  ])('data %s (terminal: %s) shows control characters as escapes', async (command, tty) => {
    const run = await data([command, hostilePackage()], tty);
    expect(leftover(run.out + run.err)).toBeNull();
    expect(run.out).toContain('\\x1b[2J');
  });

  it('data validate names the hostile cell visibly, on one line', async () => {
    const dir = folder({
      'data.csv': `n\n"${HOSTILE}"\n`,
      'datapackage.json': {
        name: 'p',
        resources: [
          { name: 'r', path: 'data.csv', schema: { fields: [{ name: 'n', type: 'integer' }] } },
        ],
      },
    });
    const { out } = await data(['validate', dir]);
    expect(out).toContain(`"${SHOWN}"`);
    expect(out.split('\n').filter((line) => line.includes('type-error'))).toHaveLength(1);
  });

  it('data info keeps the line breaks of a description, and shows the rest', async () => {
    const { out } = await data(['info', hostilePackage()]);
    expect(out).toContain('first line\nsecond \\x1b[2Jline');
    expect(out).toContain(`Title ${SHOWN}`);
  });

  it.each(['csv', 'tsv', 'markdown'])(
    'data cat --format %s to a terminal shows control characters as escapes',
    async (format) => {
      const { out } = await data(['cat', hostilePackage(), '--format', format], true);
      expect(leftover(out)).toBeNull();
      expect(out).toContain('\\x1b]52;c;aGVsbG8=\\x07');
    },
  );

  it('data cat to a pipe writes the data byte for byte, and --json exactly', async () => {
    const dir = hostilePackage();
    expect((await data(['cat', dir, '--format', 'csv'])).out).toContain(`1,"${HOSTILE}"`);
    expect((await data(['cat', dir, '--format', 'ndjson'])).out).toContain(JSON.stringify(HOSTILE));
    const rows = JSON.parse((await data(['--json', 'cat', dir])).out) as Record<string, unknown>[];
    expect(rows[0]?.[`na${CLEAR}me`]).toBe(HOSTILE);
    expect(leftover((await data(['cat', dir, '--format', 'markdown'])).out)).toBeNull();
  });
});

describe('text from a hub', () => {
  const search = searchResults([
    {
      id: 'u1/hostile',
      name: `hostile${CLEAR}`,
      title: `Title ${HOSTILE}`,
      datahub: { owner: `ada${CLIPBOARD}`, findability: `published${CLEAR}` },
      datapackage: {},
    },
  ]);

  it.each([
    [['search', 'x'], false],
    [['search', 'x'], true],
    [['list'], false],
  ])('data %j (terminal: %s) shows names and titles visibly', async (args, tty) => {
    server.use(search, signedIn({ id: 'u1', username: 'ada' }));
    const run = await data(args, tty);
    expect(run.code).toBe(0);
    expect(leftover(run.out + run.err)).toBeNull();
    // A terminal's table cuts long cells: the start of the owner's name is there.
    expect(run.out).toContain('ada\\x1b]5');
  });

  it('data history shows what the hub says of each revision visibly', async () => {
    server.use(
      userIds(),
      revisionsOf('u1', 'hostile', [
        {
          revision: 1,
          state: `SUCCEEDED${CLEAR}`,
          findability: `published${HOSTILE}`,
          published: true,
          created: '2026-01-01T00:00:00Z',
          modified: `2026-01-01T00:00:00Z${CLIPBOARD}`,
        },
      ]),
    );
    for (const tty of [false, true]) {
      const run = await data(['history', 'ada/hostile'], tty);
      expect(leftover(run.out + run.err)).toBeNull();
    }
  });

  it('an error message of the hub comes out visibly', async () => {
    server.use(
      http.get(`${API}/auth/resolve`, () =>
        HttpResponse.json({ errors: [`no ${HOSTILE}`] }, { status: 400 }),
      ),
      http.get(`${API}/metastore/search`, () =>
        HttpResponse.text(`broken ${HOSTILE}`, { status: 400 }),
      ),
    );
    for (const args of [
      ['history', 'ada/hostile'],
      ['search', 'x'],
      ['info', 'ada/hostile'],
    ]) {
      const run = await data(args);
      expect(run.code).not.toBe(0);
      expect(run.code).not.toBe(70);
      expect(leftover(run.out + run.err)).toBeNull();
    }
  });
});
