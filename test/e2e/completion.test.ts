/** The completion scripts, loaded into the real shells and asked to complete. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBinSync } from '../helpers/cli.js';
const has = (shell: string) =>
  spawnSync(shell, ['--version']).status === 0 || Boolean(process.env.CI);

function script(shell: string): string {
  const run = runBinSync(['completion', shell]);
  expect(run.code).toBe(0);
  const file = join(mkdtempSync(join(tmpdir(), 'data-completion-')), `data.${shell}`);
  writeFileSync(file, run.out);
  return file;
}

describe('shell completion', () => {
  it('completes commands, options and their choices in bash', () => {
    const file = script('bash');
    const complete = (words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source '${file}'; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${String(words.length - 1)}; _data; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .stdout.trim()
        .split('\n');
    expect(complete(['data', 'pub'])).toEqual(['publish', 'publisher']);
    expect(complete(['data', 'validate', '--fo'])).toEqual(['--format']);
    expect(complete(['data', 'validate', '--format', ''])).toEqual(['text', 'json', 'github']);
    expect(complete(['data', 'config', ''])).toEqual(['get', 'set', 'unset', 'list']);
    expect(complete(['data', 'cat', 'x', '--format', 'nd'])).toEqual(['ndjson']);
  });

  it.skipIf(!has('fish'))('completes commands and choices in fish', () => {
    const file = script('fish');
    const complete = (line: string) =>
      spawnSync('fish', ['-c', `source '${file}'; complete -C '${line}'`], { encoding: 'utf8' })
        .stdout;
    expect(complete('data val')).toMatch(/^validate\t/);
    expect(
      complete('data validate --format ')
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(expect.arrayContaining(['text', 'json', 'github']));
  });

  it.skipIf(!has('zsh'))('loads into zsh completion as the completer of data', () => {
    const file = script('zsh');
    const run = spawnSync(
      'zsh',
      [
        '-c',
        `autoload -U compinit; compinit -u -d '${file}.dump'; source '${file}'; print -r -- $_comps[data]`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('_data');
  });

  it('refuses a shell it has no script for', () => {
    const run = runBinSync(['completion', 'tcsh']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('choose bash, zsh or fish');
  });
});
