import { describe, expect, it } from 'vitest';
import type { ResourceInfo } from '../../packages/cli/src/client/info.js';
import type { PackageDiff, ResourceDiff } from '../../packages/core/src/diff/index.js';
import { summaryText, type ChangeSummary } from '../../packages/core/src/diff/summary.js';
import { chartSvg } from '../../packages/hub/src/views/chart.js';
import { datasetPage, type DatasetView } from '../../packages/hub/src/views/dataset.js';
import { listingPage } from '../../packages/hub/src/views/listing.js';
import { NO_COLORS } from '../../packages/core/src/text/palette.js';
import { diffText } from '../../packages/core/src/diff/text.js';
import { gcSummary } from '../../packages/cli/src/output/gc.js';
import { renderInfo, renderInfoPlain } from '../../packages/cli/src/output/info.js';
import { migrationSummary } from '../../packages/cli/src/output/migrate.js';
import { renderHuman } from '../../packages/cli/src/output/report.js';
import { describeBytes } from '../../packages/core/src/text/bytes.js';
import { counted, grouped, noun } from '../../packages/core/src/text/numbers.js';
import type { Report, ReportError, Task } from '../../packages/core/src/validator/report/types.js';

/** Every count a renderer writes is said with 0, 1 and 2 (and more, where it changes form). */
const COUNTS = [0, 1, 2] as const;
const rows = (count: number) => (count === 1 ? 'row' : 'rows');

describe('the plural helper', () => {
  it('says 0 and 2 in the plural, 1 in the singular, with the irregular plural given', () => {
    expect(COUNTS.map((count) => counted(count, 'row'))).toEqual(['0 rows', '1 row', '2 rows']);
    expect(COUNTS.map((count) => counted(count, 'property', 'properties'))).toEqual([
      '0 properties',
      '1 property',
      '2 properties',
    ]);
    expect(counted(1.5, 'second')).toBe('1.5 seconds');
    expect(noun(1, 'entry', 'entries')).toBe('entry');
    expect(counted(1_234_567, 'row')).toBe('1,234,567 rows');
    expect([grouped(-1234), grouped(999), grouped(1234.5678)]).toEqual([
      '-1,234',
      '999',
      '1,234.5678',
    ]);
  });
});

const names = (count: number) => ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].slice(0, count);

function summary(changes: Partial<ChangeSummary>): ChangeSummary {
  return {
    since: 1,
    rows: { added: 0, removed: 0, changed: 0 },
    resources: { added: [], removed: [], renamed: [] },
    fields: { added: [], removed: [], retyped: [], changed: [] },
    properties: [],
    ...changes,
  };
}

function resourceDiff(added: number, unchanged: number): ResourceDiff {
  return {
    name: 'prices',
    status: 'changed',
    schema: { added: [], removed: [], changed: [], keys: [] },
    rows: { added, removed: 0, changed: 0, unchanged, key: ['id'] },
    samples: { added: [], removed: [], changed: [] },
  };
}

function task(rowCount: number, errors: number): Task {
  const error: ReportError = {
    type: 'type-error',
    title: 'Type Error',
    description: '',
    message: 'bad',
    tags: [],
    note: '',
  };
  return {
    valid: errors === 0,
    name: 'prices',
    type: 'table',
    place: 'prices.csv',
    labels: [],
    stats: { rows: rowCount, warnings: 0, errors, seconds: 0.01 },
    warnings: [],
    errors: Array.from({ length: errors }, () => error),
  };
}

function report(tasks: Task[]): Report {
  const errors = tasks.reduce((sum, each) => sum + each.errors.length, 0);
  return {
    valid: errors === 0,
    stats: { tasks: tasks.length, errors, warnings: 0, seconds: 0.01 },
    warnings: [],
    errors: [],
    tasks,
  };
}

function view(fields: number, checked: Report | undefined): DatasetView {
  return {
    owner: 'ada',
    name: 'prices',
    title: 'Prices',
    description: null,
    readme: null,
    revision: 1,
    state: 'SUCCEEDED',
    findability: 'published',
    facts: [],
    resources: [
      {
        index: 0,
        name: 'prices',
        title: undefined,
        format: 'csv',
        bytes: 10,
        rows: 1,
        fileName: 'prices.csv',
        copies: [],
        schema: {
          fields: names(fields).map((name) => ({
            name,
            type: 'string',
            format: undefined,
            description: undefined,
            constraints: '',
          })),
          primaryKey: [],
          foreignKeys: [],
        },
      },
    ],
    zip: undefined,
    charts: [],
    history: [],
    changes: undefined,
    report: checked,
    failure: [],
    viewer: undefined,
  };
}

const info = (count: number): ResourceInfo => ({
  name: 'prices',
  format: 'csv',
  source: 'prices.csv',
  bytes: count,
  rows: count,
  preview: undefined,
  fields: undefined,
});

describe('every count the CLI and the hub print, with 0, 1 and 2', () => {
  it('a change summary (data history, the hub pages): rows, resources, fields, properties', () => {
    for (const count of COUNTS)
      expect(summaryText(summary({ rows: { added: count, removed: 0, changed: 1 } }))).toBe(
        `+${String(count)} ${rows(count)}, −0, 1 changed`,
      );
    const kinds = [
      [
        'resource',
        'resources',
        (n: number) => summary({ resources: { added: names(n), removed: [], renamed: [] } }),
        'added',
      ],
      [
        'field',
        'fields',
        (n: number) =>
          summary({ fields: { added: [], removed: names(n), retyped: [], changed: [] } }),
        'removed',
      ],
      ['property', 'properties', (n: number) => summary({ properties: names(n) }), 'changed'],
    ] as const;
    for (const [one, other, make, what] of kinds) {
      expect(summaryText(make(0))).toBe('no changes');
      expect(summaryText(make(1))).toBe(`${one} "alpha" ${what}`);
      expect(summaryText(make(2))).toBe(`${other} "alpha", "beta" ${what}`);
      expect(summaryText(make(5))).toBe(`5 ${other} ${what}`);
    }
  });

  it("a diff: each table's rows", () => {
    for (const count of COUNTS) {
      const diff: PackageDiff = {
        a: 'a',
        b: 'b',
        properties: [],
        resources: [resourceDiff(count, count)],
      };
      expect(diffText(diff, NO_COLORS)).toContain(
        `prices: +${String(count)} ${rows(count)}, −0, 0 changed, ${String(count)} unchanged (by id)`,
      );
    }
  });

  it('data info: rows and bytes, on a terminal and in a pipe', () => {
    for (const count of COUNTS) {
      const dataset = {
        name: 'p',
        title: undefined,
        description: undefined,
        licenses: [],
        version: undefined,
        resources: [info(count)],
      };
      expect(renderInfo(dataset, 'p', NO_COLORS)).toContain(`${String(count)} ${rows(count)}`);
      expect(renderInfoPlain(dataset, 'p')).toContain(
        `prices  csv  ${String(count)} ${count === 1 ? 'byte' : 'bytes'}, ${String(count)} ${rows(count)}`,
      );
      expect(describeBytes(count)).toBe(`${String(count)} ${count === 1 ? 'byte' : 'bytes'}`);
    }
  });

  it('data validate: resources, rows and errors', () => {
    for (const count of COUNTS) {
      const valid = renderHuman(
        report(Array.from({ length: Math.max(count, 1) }, () => task(count, 0))),
        NO_COLORS,
      );
      expect(valid).toContain(`${String(count)} ${rows(count)}`);
      const invalid = renderHuman(report([task(1, Math.max(count, 1))]), NO_COLORS);
      expect(invalid).toContain(
        count === 2
          ? '✖ invalid: 2 errors in 1 of 1 resource'
          : '✖ invalid: 1 error in 1 of 1 resource',
      );
    }
  });

  it('data serve-migrate and data serve-gc: damaged objects, files, uploads, holdings', () => {
    for (const count of COUNTS) {
      const damaged = migrationSummary(
        { copied: count, present: count, bytes: 0, damaged: names(count), rows: {} },
        'there',
      );
      if (count === 0) expect(damaged).not.toContain('damaged');
      else
        expect(damaged).toContain(
          count === 1
            ? '1 damaged object left behind: its bytes are not the ones its key names'
            : '2 damaged objects left behind: their bytes are not the ones their keys name',
        );
      const each = { count, bytes: count };
      const collected = gcSummary({ dryRun: false, holdings: each, objects: each, staged: each });
      const s = count === 1 ? '' : 's';
      expect(collected).toContain(`removed ${String(count)} stored file${s} (`);
      expect(collected).toContain(`and ${String(count)} staged upload${s} (`);
      expect(collected).toContain(`(${String(count)} holding${s})`);
    }
  });

  it("the hub's pages: a listing's datasets and rows, a dataset's fields and errors, a chart's points", () => {
    for (const count of COUNTS) {
      const listing = listingPage({
        path: '/',
        heading: 'Datasets',
        intro: '',
        query: '',
        sort: 'updated',
        page: 1,
        pageSize: 20,
        total: count,
        cards: [
          {
            owner: 'ada',
            name: 'prices',
            title: null,
            description: null,
            bytes: null,
            rows: count,
            license: null,
            updated: '2026-01-01T00:00:00Z',
            findability: 'published',
          },
        ],
        empty: '',
        viewer: undefined,
      });
      expect(listing).toContain(`${String(count)} ${rows(count)}`);
      if (count > 0)
        expect(listing).toContain(`${String(count)} dataset${count === 1 ? '' : 's'}<`);
      const page = datasetPage(view(count, report([task(1, count)])));
      if (count > 0) {
        // A schema of no fields is not shown.
        expect(page).toContain(
          `Schema of prices: ${String(count)} field${count === 1 ? '' : 's'}<`,
        );
        expect(page).toContain(`${String(count)} error${count === 1 ? '' : 's'}, grouped`);
        expect(page).toContain(
          `<code>type-error</code>: ${String(count)} error${count === 1 ? '' : 's'}<`,
        );
      } else expect(page).toContain('Every resource passed validation (1 resource checked)');
      const labels = Array.from({ length: count }, (_, index) => String(index));
      const svg = chartSvg(
        { title: 'T', type: 'line', group: 'x', series: ['y'] },
        { labels, values: [labels.map(Number)] },
      );
      expect(svg).toContain(`${String(count)} point${count === 1 ? '' : 's'}`);
    }
  });
});
