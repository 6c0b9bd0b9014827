/**
 * Patterns from a descriptor run in linear time. The inputs below take a backtracking
 * engine 2^40 steps and more (days): a match that ends at all shows the bound, and each
 * also checks the verdict. A match runs in a worker of its own, as a stuck one would block
 * the test's thread, time-out included: the worker is ended after DEADLINE_MS, which is no
 * measure of speed (a linear match takes milliseconds), only how a hang becomes a failure.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type { RE2JS as RE2 } from 're2js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  isPlainPattern,
  linearPattern,
  patternProblem,
} from '../../packages/core/src/validator/schema/pattern.js';
import { compilePattern } from '../../packages/core/src/validator/schema/types/strptime.js';
import { check, schema, summary, tablePackage } from '../helpers/fixtures.js';
import { sourceModule } from '../helpers/from-sources.js';

const a = (count: number): string => 'a'.repeat(count);
const DEADLINE_MS = 20_000;
const CORE = join(import.meta.dirname, '../../packages/core/src');
// The module bundled from the sources: a worker runs JavaScript.
let patternModule = '';
beforeAll(async () => {
  patternModule = await sourceModule(join(CORE, 'validator/schema/pattern.ts'));
});

function matchInWorker(pattern: string, text: string): Promise<boolean> {
  const worker = new Worker(
    `import('${patternModule}').then(({ linearPattern }) =>
      require('node:worker_threads').parentPort.postMessage(
        linearPattern(require('node:worker_threads').workerData.pattern).test(
          require('node:worker_threads').workerData.text)));`,
    { eval: true, workerData: { pattern, text } },
  );
  return new Promise<boolean>((resolve, reject) => {
    const deadline = setTimeout(() => {
      reject(new Error(`${pattern} did not end`));
      void worker.terminate();
    }, DEADLINE_MS);
    worker.once('message', (matched: boolean) => {
      clearTimeout(deadline);
      resolve(matched);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('pattern constraints', () => {
  it.each(
    [
      // Nested quantifiers.
      ['(a+)+$', `${a(46)}!`, false],
      ['(a*)*b', a(100_000), false],
      ['(x+x+)+y', 'x'.repeat(5_000), false],
      ['(\\w+\\s?)*$', `${'word '.repeat(2_000)}!`, false],
      // Overlapping alternatives under a quantifier.
      ['(a|a)*b', a(100_000), false],
      ['(a|aa)+$', `${a(10_000)}!`, false],
      ['(.*a){12}', a(5_000), true],
      // Counted repetitions, which V8's own linear engine does not run.
      ['(a{1,30})+$', `${a(2_000)}!`, false],
      ['(\\d{1,50}-?)+x', '1'.repeat(10_000), false],
      // Long inputs on ordinary patterns.
      ['[a-z]+ [0-9]{1,4}', `${a(200_000)} 1234`, true],
      ['[A-Z]{2}\\d{6}', 'AB123456', true],
      ['[A-Z]{2}\\d{6}', 'AB12345', false],
      // Plain patterns (isPlainPattern), run by V8's backtracking engine with no setting.
      ['[a-z]{2}[a-z]*', `${a(200_000)}!`, false],
      ['a{3}a+', `${a(200_000)}!`, false],
      ['^[a-z0-9_-]+$', `${'a-'.repeat(100_000)}!`, false],
    ].map(([pattern, text, matches]) => ({ pattern, text, length: String(text).length, matches })),
  )(
    '$pattern on $length characters ends, with the right verdict',
    async ({ pattern, text, matches }) => {
      expect(await matchInWorker(String(pattern), String(text))).toBe(matches);
    },
  );

  it('matches the whole cell, as the specification says', () => {
    expect(linearPattern('b+').test('abba')).toBe(false);
    expect(linearPattern('a|b').test('a')).toBe(true);
    expect(linearPattern('a|b').test('ab')).toBe(false);
  });

  it.each([
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)a', 'Perl syntax'],
    ['(?!a)b', 'Perl syntax'],
    ['(?<=a)b', 'named capture'],
    ['(?<!a)b', 'named capture'],
  ])('refuses %s, which needs backtracking, in plain words', (pattern, reason) => {
    const problem = patternProblem(pattern) ?? '';
    expect(problem).toContain('cannot be matched in linear time');
    expect(problem).toContain(reason);
  });

  it('runs plain patterns on V8 alone: one character an atom, only the last one repeated', () => {
    for (const plain of [
      '[A-Z]{2}',
      '^\\d{4}-\\d{2}$',
      '[\\w.-]+',
      'a\\.b\\$',
      'é[à-ü]*',
      'ab{3,9}',
    ])
      expect([plain, isPlainPattern(plain)]).toEqual([plain, true]);
    // Two repetitions, a group, an alternative, or a class or escape RE2 reads otherwise.
    for (const other of [
      'a*a*b',
      'a+b',
      '(a+)+$',
      'a|b',
      '(ab)',
      '.',
      '[^a]',
      '\\s',
      '\\D',
      '[\\d-z]',
      '[😀]',
      'a{1000}',
      '(a)\\1',
    ])
      expect([other, isPlainPattern(other)]).toEqual([other, false]);
  });

  it('says of a plain pattern what RE2 says, on every text', () => {
    const letters = [
      'a',
      'z',
      'A',
      '0',
      '9',
      '-',
      '.',
      '_',
      '$',
      'é',
      'ü',
      '😀',
      '\n',
      ' ',
      '[',
      ':',
    ];
    // Every text of up to three of these letters.
    let level = [''];
    const texts = [''];
    for (let length = 1; length <= 3; length++) {
      level = level.flatMap((text) => letters.map((letter) => text + letter));
      texts.push(...level);
    }
    const { RE2JS } = createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2 };
    for (const plain of [
      '[a-z]{2}',
      '\\w+',
      '[\\w.-]{1,2}',
      'a\\.?',
      '[à-ü]*',
      '\\d\\$?',
      '^z?$',
      '[\\[:x]{1,2}',
    ]) {
      const re2 = RE2JS.compile(`^(?:${plain})$`);
      const ours = linearPattern(plain);
      const differ = texts.filter((text) => ours.test(text) !== re2.matches(text));
      expect([plain, differ]).toEqual([plain, []]);
    }
  });

  it('takes no class with a bare [ for plain: RE2 reads [:alpha:] in it as a POSIX class', () => {
    expect(isPlainPattern('[[:alpha:]')).toBe(false);
    expect(isPlainPattern('[[:digit:][x]{1,5}')).toBe(false);
    expect(patternProblem('[[:alpha:]')).toMatch(/^cannot be matched in linear time/);
  });

  it('reports an invalid pattern as invalid', () => {
    expect(patternProblem('(a')).toBe('is not a valid regular expression');
    expect(patternProblem('[a-z]+')).toBeUndefined();
  });

  it('validates a table with a catastrophic pattern: each cell checked, none hangs', async () => {
    const cells = Array.from({ length: 200 }, (_, index) => `${a(30 + (index % 20))}!`);
    const report = await check(
      tablePackage(
        `v\n${cells.join('\n')}\naaa\n`,
        schema({ name: 'v', constraints: { pattern: '(a+)+$' } }),
      ),
    );
    const errors = summary(report);
    expect(errors).toHaveLength(200);
    expect(new Set(errors)).toEqual(
      new Set(cells.map((_, index) => `constraint-error@${String(index + 2)}@1`)),
    );
  });

  it('says a pattern that needs backtracking is a field error, before reading a row', async () => {
    const report = await check(
      tablePackage(
        'v\n' + 'a\n'.repeat(10),
        schema({ name: 'v', constraints: { pattern: '(a)\\1' } }),
      ),
    );
    expect(summary(report)).toEqual(['field-error']);
    expect(report.errors[0]?.message).toContain(
      'constraint "pattern" of field "v" cannot be matched in linear time',
    );
  });
});

describe("V8's RegExp settings", () => {
  // Process-wide, and costly to every thread started after them: a process of its own, which
  // runs core bundled from the sources.
  let core = '';
  beforeAll(async () => {
    core = await sourceModule(join(CORE, 'index.ts'));
  });
  const settingsAfter = (descriptor: string): string => {
    const script = `
      const { validate, regExpFlagsSet } = await import(${JSON.stringify(core)});
      const report = await validate(process.argv[1], {});
      console.log(report.valid, regExpFlagsSet());`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, descriptor], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    return run.stdout.trim();
  };

  it('are left alone by a table without patterns, set by a pattern or a date format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-regexp-settings-'));
    try {
      writeFileSync(join(dir, 'data.csv'), 'id,day\n1,2024-01-31\n');
      const fields = [
        { name: 'id', type: 'integer' },
        { name: 'day', type: 'date' },
      ];
      const descriptor = {
        name: 'plain',
        resources: [{ name: 'data', path: 'data.csv', schema: { fields } }],
      };
      writeFileSync(join(dir, 'datapackage.json'), JSON.stringify(descriptor));
      expect(settingsAfter(dir)).toBe('true false');
      // A pattern that is not plain: two repetitions.
      const id = { name: 'id', type: 'string', constraints: { pattern: '\\d+-?\\d*' } };
      const patterned = {
        ...descriptor,
        resources: [{ ...descriptor.resources[0], schema: { fields: [id, fields[1]] } }],
      };
      writeFileSync(join(dir, 'datapackage.json'), JSON.stringify(patterned));
      expect(settingsAfter(dir)).toBe('true true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const examples = join(import.meta.dirname, '../../examples');
    // A plain pattern ([A-Z]{2}); a time's format (%H:%M).
    expect(settingsAfter(join(examples, 'cities'))).toBe('true false');
    expect(settingsAfter(join(examples, 'sales-v2'))).toBe('true true');
  });
});

describe('strptime formats from a descriptor', () => {
  it('end on long digit runs whatever the number of directives', () => {
    const parse = compilePattern('%d'.repeat(24));
    expect(parse(`${'1'.repeat(40)}x`)).toBeUndefined();
  });

  it('still read month and day names and AM/PM in any case', () => {
    expect(compilePattern('%a %d %b %Y %I%p')('MONDAY 03 JAN 2024 02pm')).toMatchObject({
      year: 2024,
      month: 1,
      day: 3,
    });
    expect(compilePattern('%d %B %Y')('3 january 2024')).toMatchObject({ month: 1 });
    expect(compilePattern('%Y-%m-%dT%H')('2024-01-03t05')).toMatchObject({ hour: 5 });
  });
});
