import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { folder } from '../helpers/fixtures.js';

/**
 * The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml), run here
 * as their runners would run them: the action's script with its inputs in the environment,
 * the hook's entry with its arguments in the package's folder.
 */
const ROOT = join(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/cities');

/**
 * An `npm` that refuses to run, first on the PATH: the action's script installs and builds
 * data when it finds no build, which in a checkout others work in (or while a build is under
 * way) would replace node_modules beneath them. A test without a build fails instead.
 */
function npmThatRefuses(): string {
  const dir = folder({});
  writeFileSync(
    join(dir, 'npm'),
    '#!/bin/sh\necho "npm $* refused in the tests: run npm run build first" >&2\nexit 97\n',
    { mode: 0o755 },
  );
  return dir;
}
const PATH = `${npmThatRefuses()}${delimiter}${process.env.PATH ?? ''}`;

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', PATH, ...options.env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The example package with its second table's id 3 written as a word. */
function invalidPackage(): string {
  const dir = folder({});
  cpSync(EXAMPLE, dir, { recursive: true });
  const cities = join(dir, 'data', 'cities.csv');
  const lines = readFileSync(cities, 'utf8').split('\n');
  lines[3] = lines[3]?.replace(/^[^,]*/, 'three') ?? '';
  writeFileSync(cities, lines.join('\n'));
  return dir;
}

interface Action {
  inputs: Record<string, { default: string }>;
  runs: { using: string; steps: { run?: string; env?: Record<string, string> }[] };
}

describe('the GitHub Action', () => {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;
  const script = join(ROOT, 'scripts/ci/validate.sh');

  it('is a composite action with the inputs path, format and strict, running its script', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.inputs.path?.default).toBe('.');
    expect(action.inputs.format?.default).toBe('github');
    expect(action.inputs.strict?.default).toBe('false');
    const step = action.runs.steps.find((each) => each.run?.includes('scripts/ci/validate.sh'));
    expect(Object.keys(step?.env ?? {}).sort()).toEqual([
      'INPUT_FORMAT',
      'INPUT_PATH',
      'INPUT_STRICT',
    ]);
  });

  it('passes a valid package, and annotates the line of each error of an invalid one', async () => {
    const valid = await run('bash', [script], { env: { INPUT_PATH: EXAMPLE } });
    expect(valid.code).toBe(0);
    expect(valid.out).not.toContain('::error');
    const invalid = invalidPackage();
    const failed = await run('bash', [script], { env: { INPUT_PATH: invalid } });
    expect(failed.code).toBe(1);
    expect(failed.out).toContain(
      `::error file=${join(invalid, 'data', 'cities.csv')},line=4,col=1,title=Type Error::`,
    );
  });

  it('makes likely typos errors with strict, and refuses a strict that is not true or false', async () => {
    const typo = folder({});
    cpSync(EXAMPLE, typo, { recursive: true });
    const descriptor = join(typo, 'datapackage.json');
    const parsed = JSON.parse(readFileSync(descriptor, 'utf8')) as Record<string, unknown>;
    writeFileSync(descriptor, JSON.stringify({ ...parsed, titel: 'Cities' }));
    expect((await run('bash', [script], { env: { INPUT_PATH: typo } })).code).toBe(0);
    const strict = await run('bash', [script], {
      env: { INPUT_PATH: typo, INPUT_STRICT: 'true' },
    });
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/::error file=.*datapackage\.json,title=Package Error::.*"titel"/);
    const wrong = await run('bash', [script], { env: { INPUT_PATH: typo, INPUT_STRICT: 'yes' } });
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('strict must be true or false');
  });
});

describe('the pre-commit hook', () => {
  const [hook] = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as {
    id: string;
    entry: string;
    args: string[];
    files: string;
    pass_filenames: boolean;
  }[];

  it('runs on changes to the descriptor and the data files of a package', () => {
    expect(hook?.id).toBe('data-validate');
    const files = new RegExp(hook?.files ?? '^$');
    for (const path of ['datapackage.json', 'data/cities.csv', 'sub/datapackage.yaml', 'x.xlsx'])
      expect(files.test(path), path).toBe(true);
    expect(files.test('README.md')).toBe(false);
  });

  it('validates the package with its entry: commit allowed when valid, stopped when not', async () => {
    const [program, ...entry] = (hook?.entry ?? '').split(' ');
    expect(program).toBe('data');
    const bin = join(ROOT, 'bin', 'data');
    const args = [bin, ...entry, ...(hook?.args ?? [])];
    expect((await run(process.execPath, args, { cwd: EXAMPLE })).code).toBe(0);
    const failed = await run(process.execPath, args, { cwd: invalidPackage() });
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/type-error|Type error|integer/);
  });
});
