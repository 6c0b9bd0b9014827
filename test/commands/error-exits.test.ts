import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  InputError,
  InterruptedError,
  InvalidDataError,
  NetworkError,
  NotFoundError,
  RefusedError,
  ServerError,
  UsageError,
  type DataError,
  type ErrorKind,
  type ErrorReason,
} from '../../packages/core/src/index.js';
import { run } from '../../packages/cli/src/cli.js';
import { EXIT_CODE_TABLE, exitCodeOf } from '../../packages/cli/src/exit-codes.js';
import { hintOf } from '../../packages/cli/src/output/hints.js';
import { memoryIO } from '../../packages/cli/src/output/io.js';

/** Each kind of the domain's errors, its code and the exit code the CLI answers it with. */
const EXITS: [DataError, ErrorKind, string, number][] = [
  [new UsageError('u'), 'usage', 'E_USAGE', 2],
  [new UsageError('u', { code: 'E_NO_ZIP' }), 'usage', 'E_NO_ZIP', 2],
  [new InputError('i'), 'input', 'E_INPUT', 2],
  [new InputError('i', { code: 'E_FILE' }), 'input', 'E_FILE', 2],
  [new NotFoundError('n'), 'not-found', 'E_NOT_FOUND', 2],
  [new InvalidDataError('d'), 'invalid-data', 'E_DATA', 1],
  [new InvalidDataError('d', { code: 'E_UNSAFE' }), 'invalid-data', 'E_UNSAFE', 1],
  [new RefusedError('r'), 'refused', 'E_REFUSED', 1],
  [new NetworkError('n'), 'network', 'E_NETWORK', 3],
  [new NetworkError('n', undefined, { code: 'E_TIMEOUT' }), 'network', 'E_TIMEOUT', 3],
  [new ServerError('s'), 'server', 'E_API', 3],
  [new ApiError('step', 500, 'failed'), 'server', 'E_API', 3],
  [new ApiError('step', 404, 'no such'), 'server', 'E_NOT_FOUND', 3],
  [new ApiError('step', 401, 'who?'), 'auth', 'E_API', 4],
  [new AuthError('a'), 'auth', 'E_AUTH', 4],
  [new InterruptedError('SIGINT'), 'interrupted', 'E_INTERRUPTED', 130],
  [new InterruptedError('SIGTERM'), 'interrupted', 'E_TERMINATED', 143],
];

/** Every kind, so that a new one without its row here fails to compile. */
const KINDS = {
  usage: true,
  input: true,
  'not-found': true,
  network: true,
  server: true,
  auth: true,
  'invalid-data': true,
  refused: true,
  interrupted: true,
} satisfies Record<ErrorKind, true>;

describe('exitCodeOf', () => {
  it.each(EXITS)('answers %o (kind %s, code %s) with exit %i', (error, kind, code, exit) => {
    expect(error.kind).toBe(kind);
    expect(error.code).toBe(code);
    expect(exitCodeOf(error)).toBe(exit);
  });

  it('maps every kind, each to an exit code the README documents', () => {
    expect(new Set(EXITS.map(([error]) => error.kind))).toEqual(new Set(Object.keys(KINDS)));
    const documented = new Set(EXIT_CODE_TABLE.map(([code]) => code));
    for (const [error] of EXITS) expect(documented).toContain(exitCodeOf(error));
  });

  it('leaves no exit code on the errors themselves', () => {
    for (const [error] of EXITS) expect(error).not.toHaveProperty('exitCode');
  });
});

/** The CLI's hint for each reason: the texts the domain's errors carried before. */
const HINTS = {
  refused: 'nothing listens there: is the hub running, and is --api (or DATA_API) its address?',
  unresolved: 'the host name does not resolve: check --api (or DATA_API) and your DNS',
  silent:
    'the server may be overloaded: try again, or allow more time with DATA_HTTP_TIMEOUT (seconds)',
  'folder-not-empty': 'pass --force to write into it, or --out to choose another folder',
  'not-a-file': 'pass --out to choose another folder',
  'file-differs': 'pass --force to replace it, or --out to save it in another folder',
  'file-exists': 'pass --force to replace it',
  'no-zip': 'fetch it without --zip: `data get` writes the same folder',
  'publication-unfinished':
    'the publication may still finish: run `data info` on the dataset later',
  'sign-in-address':
    "data opens only http and https addresses; tell the hub's operator, or use `data login --with-token`",
  'sign-in-timeout': 'run `data login` again, or `data login --with-token`',
  'sheets-list':
    'give all, numbers from 1 or names, separated by commas: --sheets 1,3 or --sheets Prices,Notes',
  'no-such-sheet': 'choose among them with --sheets, by number or name, or --sheets all',
  'no-workbooks': 'publish without --sheets',
  'no-descriptor':
    'publish a single data file with `data publish file.csv`, or describe the folder first',
  'not-a-descriptor': '`data validate` says what is wrong with it',
  'no-dataset':
    'check the owner and the dataset name; if it is yours and private, run `data login` first',
  'dataset-unreadable': 'check the owner and the dataset; if it is private, run `data login` first',
  'unreadable-table': '`data validate` reports it with the rest of what is wrong with the data',
  'hub-database':
    'check --database: a SQLite file in a folder you can write to, or postgres://user@host/database of a PostgreSQL that takes connections from here',
  'hub-storage': 'choose a --storage folder you can write to',
  'hub-sign-in':
    'configure one in the hub configuration (--config), or pass --dev-sign-in for a development hub',
  'token-change-sent':
    'the hub may have made the change before it stopped: `data token list` shows your tokens',
  'org-change-sent':
    'the hub may have made the change before it stopped: `data org members ORG` shows the organisation',
  'publisher-change-sent':
    'the hub may have made the change before it stopped: `data publisher list OWNER/DATASET` shows its publishers',
} satisfies Record<ErrorReason, string>;

describe('hintOf', () => {
  it.each(Object.entries(HINTS))('gives the CLI hint for %s', (reason, hint) => {
    const error = new UsageError('m', {
      hint: 'the domain hint',
      reason: reason as ErrorReason,
      signedIn: false,
    });
    expect(hintOf(error)).toBe(hint);
  });

  it('keeps the domain hint where the CLI has nothing to add', () => {
    expect(hintOf(new InputError('m', 'check the path'))).toBe('check the path');
    expect(hintOf(new InputError('m'))).toBeUndefined();
    // Signed in, a private dataset is not for this reader: nothing to run.
    const hidden = new NotFoundError('m', {
      hint: 'a private dataset…',
      reason: 'no-dataset',
      signedIn: true,
    });
    expect(hintOf(hidden)).toBe('a private dataset…');
  });

  it('says how to sign in for a refused or missing credential, not for a hub that answered 401', () => {
    expect(hintOf(new AuthError('no token'))).toBe('run `data login`, or set DATA_TOKEN');
    expect(hintOf(new AuthError('expired', 'run `data login` again'))).toBe(
      'run `data login` again',
    );
    expect(hintOf(new ApiError('whoami', 401, 'no'))).toBeUndefined();
  });
});

describe('a domain error through data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'error-exits-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const data = async (
    argv: string[],
    options: { env?: Record<string, string>; net?: true } = {},
  ) => {
    const env = { DATA_KEYCHAIN: '0', DATA_CONFIG_DIR: join(dir, 'config'), ...options.env };
    const io = memoryIO({ env });
    const fetch = () => Promise.reject(new Error('no network in this test'));
    const code = await run(argv, io, options.net ? {} : { fetch });
    return { code, out: io.out(), err: io.err() };
  };
  const listening = async (server: Server): Promise<string> => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  };

  it('names --api when nothing listens at the address of the hub, exit 3', async () => {
    const server = createServer();
    const api = await listening(server);
    server.close();
    await once(server, 'close');
    const { code, err } = await data(['info', 'someone/dataset', '--api', api], { net: true });
    expect(code).toBe(3);
    expect(err).toContain(
      'hint: nothing listens there: is the hub running, and is --api (or DATA_API) its address?\n',
    );
  });

  it('names DATA_HTTP_TIMEOUT when the hub goes quiet, exit 3', async () => {
    const server = createServer(() => undefined);
    const api = await listening(server);
    try {
      const { code, err } = await data(['info', 'someone/dataset', '--api', api], {
        env: { DATA_HTTP_TIMEOUT: '0.2' },
        net: true,
      });
      expect(code).toBe(3);
      expect(err).toContain(
        'hint: the server may be overloaded: try again, or allow more time with DATA_HTTP_TIMEOUT (seconds)\n',
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('prints the CLI hint for a folder in the way, exit 2', async () => {
    const out = join(dir, 'taken');
    mkdirSync(out);
    writeFileSync(join(out, 'data.csv'), 'a\n1\n');
    const { code, err } = await data(['get', 'someone/dataset', '--out', out]);
    expect(code).toBe(2);
    expect(err).toBe(
      `error: ${out} is not empty\nhint: pass --force to write into it, or --out to choose another folder\n`,
    );
  });

  it('prints one JSON document for a usage error commander finds, under --json, exit 2', async () => {
    const cases: [string[], string][] = [
      [['token', 'create', 'x', '--scope', 'bad', '--json'], '--scope cannot be "bad"'],
      [['--json', 'org', 'create'], 'missing required argument <org>'],
      [['--json', 'get', 'ada/cities', '--no-such-option'], 'there is no option --no-such-option'],
      [['--json', 'no-such-command'], 'there is no command "no-such-command"'],
      [['--json', 'token'], 'a command is needed'],
    ];
    for (const [argv, message] of cases) {
      const { code, out } = await data(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(out.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(JSON.parse(out), argv.join(' ')).toEqual({
        error: {
          code: 'E_USAGE',
          message: expect.stringContaining(message) as unknown,
          hint: expect.stringContaining('--help') as unknown,
        },
      });
    }
    // Without --json, nothing on stdout: commander says it on stderr.
    const plain = await data(['token', 'create', 'x', '--scope', 'bad']);
    expect({ code: plain.code, out: plain.out }).toEqual({ code: 2, out: '' });
    expect(plain.err).toContain('--scope cannot be "bad"');
    // Help and the version are no errors.
    expect((await data(['--json', 'token', '--help'])).code).toBe(0);
  });

  it("says commander's usage errors in data's words, the value made visible, exit 2", async () => {
    const cases: [string[], string][] = [
      [
        ['org', 'members', 'bad\u001b[31mname'],
        '<org> cannot be "bad\\x1b[31mname": organisation names are letters, digits, "-" and "_", starting with a letter or digit, at most 39 characters',
      ],
      [
        ['token', 'create', 'x', '--scope', 'nope'],
        '--scope cannot be "nope": choose read, publish or admin',
      ],
      [
        ['token', 'create', 'x', '--scope', 'read', '--expires', '1e400'],
        '--expires cannot be "1e400": expected a whole number of days, 1 or more',
      ],
      [['org', 'members'], 'missing required argument <org>'],
      [['org', 'add', 'acme', 'grace'], '--role is required'],
      [['token', 'create', 'x', '--scope'], '--scope needs a value'],
    ];
    for (const [argv, message] of cases) {
      const { code, out, err } = await data(argv);
      expect({ code, out, err }, argv.join(' ')).toEqual({
        code: 2,
        out: '',
        err: `error: ${message}\nhint: the usage is in --help\n`,
      });
    }
  });

  it('prints the code, the message and the CLI hint under --json', async () => {
    const file = join(dir, 'datapackage.json');
    writeFileSync(file, JSON.stringify({ resources: 'none' }));
    const { code, out } = await data(['cat', file, '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toEqual({
      error: {
        code: 'E_INPUT',
        message: expect.stringContaining('is not a package descriptor') as unknown,
        hint: '`data validate` says what is wrong with it',
      },
    });
  });
});
