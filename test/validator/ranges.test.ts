/**
 * A large CSV file is validated as two byte ranges on two workers; whatever lies around the
 * split, the report must be the one a single pass gives. The split is forced here on small
 * files, at chosen rows (the second range runs the built worker, as in use).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report, ValidateEvent } from '../../packages/core/src/validator/index.js';
import { check, summary, tablePackage } from '../helpers/fixtures.js';

const ROWS = 4000;
const SPLIT_ROW = 2500;

type Edit = (row: number, line: string) => string;

/** A header and ROWS data lines, each passed through `edit` (row numbers as reports count them). */
function table(edit: Edit = (_, line) => line, eol = '\n'): { csv: string; offsets: number[] } {
  const lines = ['id,code,amount,note'];
  for (let id = 1; id <= ROWS; id++)
    lines.push(
      edit(id + 1, `${String(id)},c${String(id)},${String(id * 1.5)},"note ${String(id)}"`),
    );
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += Buffer.byteLength(line + eol);
  }
  return { csv: lines.join(eol) + eol, offsets };
}

const fields = [
  { name: 'id', type: 'integer' },
  { name: 'code', type: 'string', constraints: { unique: true } },
  { name: 'amount', type: 'number', constraints: { minimum: 0 } },
  { name: 'note', type: 'string' },
];

const withoutSeconds = (report: Report): unknown =>
  JSON.parse(JSON.stringify(report, (key, value: unknown) => (key === 'seconds' ? 0 : value)));

/**
 * Validates in one pass, then split just before line `splitLine` (1-based, as row
 * numbers), and expects the same report; returns it.
 */
async function sameAsOnePass(
  dir: string,
  offsets: number[],
  options: Parameters<typeof check>[1] = {},
  splitLine = SPLIT_ROW,
): Promise<{ report: Report; split: boolean; events: ValidateEvent[] }> {
  const one = await check(dir, { ...options, split: false });
  const events: ValidateEvent[] = [];
  const at = (offsets[splitLine - 1] ?? 0) - 1;
  const two = await check(dir, {
    ...options,
    split: { minBytes: 0, at },
    onProgress: (event) => events.push(event),
  });
  expect(withoutSeconds(two)).toEqual(withoutSeconds(one));
  const joined = events.some((event) => event.type === 'ranges' && event.joined);
  return { report: one, split: joined, events };
}

function tableDir(csv: string, schema: Record<string, unknown> = {}, resource = {}): string {
  return tablePackage(csv, { schema: { fields, primaryKey: ['id'], ...schema }, ...resource });
}

describe('two byte ranges give the report of one pass', () => {
  it('on a valid table', async () => {
    const { csv, offsets } = table();
    const { report, split } = await sameAsOnePass(tableDir(csv), offsets);
    expect(split).toBe(true);
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.stats.rows).toBe(ROWS);
  });

  it('with errors on the last rows of the first range and the first rows of the second', async () => {
    const { csv, offsets } = table((row, line) => {
      if (row === SPLIT_ROW - 1) return line.replace(/,[\d.]+,/, ',-1,');
      if (row === SPLIT_ROW) return `${line},extra`;
      if (row === SPLIT_ROW + 1) return line.replace(/,[\d.]+,"/, ',x,"');
      if (row === SPLIT_ROW + 2) return ',,,';
      if (row === SPLIT_ROW + 3) return line.split(',').slice(0, 2).join(',');
      return line;
    });
    const { report, split } = await sameAsOnePass(tableDir(csv), offsets);
    expect(split).toBe(true);
    expect(summary(report)).toEqual([
      `constraint-error@${String(SPLIT_ROW - 1)}@3`,
      `extra-cell@${String(SPLIT_ROW)}@5`,
      `type-error@${String(SPLIT_ROW + 1)}@3`,
      `blank-row@${String(SPLIT_ROW + 2)}`,
      `primary-key@${String(SPLIT_ROW + 2)}`,
      `missing-cell@${String(SPLIT_ROW + 3)}@3`,
      `missing-cell@${String(SPLIT_ROW + 3)}@4`,
    ]);
  });

  it('with keys of the first range repeated in the second, once and again', async () => {
    const repeats = new Map([
      [SPLIT_ROW + 10, 100],
      [SPLIT_ROW + 20, 100],
      [SPLIT_ROW + 30, 7],
      [SPLIT_ROW + 40, SPLIT_ROW + 35],
    ]);
    const { csv, offsets } = table((row, line) => {
      const first = repeats.get(row);
      if (first === undefined) return line;
      const [, , ...rest] = line.split(',');
      return [String(first - 1), `c${String(first - 1)}`, ...rest].join(',');
    });
    const { report } = await sameAsOnePass(tableDir(csv), offsets);
    const errors = report.tasks[0]?.errors ?? [];
    expect(
      errors.map((error) => `${error.type}@${String(error.rowNumber)}: ${error.note}`),
    ).toEqual([
      `unique-error@${String(SPLIT_ROW + 10)}: the same as in row "100"`,
      `primary-key@${String(SPLIT_ROW + 10)}: the same as in row "100"`,
      `unique-error@${String(SPLIT_ROW + 20)}: the same as in row "100"`,
      `primary-key@${String(SPLIT_ROW + 20)}: the same as in row "100"`,
      `unique-error@${String(SPLIT_ROW + 30)}: the same as in row "7"`,
      `primary-key@${String(SPLIT_ROW + 30)}: the same as in row "7"`,
      `unique-error@${String(SPLIT_ROW + 40)}: the same as in row "${String(SPLIT_ROW + 35)}"`,
      `primary-key@${String(SPLIT_ROW + 40)}: the same as in row "${String(SPLIT_ROW + 35)}"`,
    ]);
  });

  it('with a primary key shared by a unique field, and a unique key of two fields', async () => {
    const { csv, offsets } = table((row, line) => {
      const cells = line.split(',');
      if (row === SPLIT_ROW + 5) [cells[0], cells[2]] = ['9', '-3'];
      if (row === SPLIT_ROW + 6) [cells[1], cells[2]] = ['c19', '28.5'];
      if (row === SPLIT_ROW + 7) cells[0] = String(SPLIT_ROW + 5);
      return cells.join(',');
    });
    const shared = [
      { ...fields[0], constraints: { unique: true } },
      { name: 'code', type: 'string' },
      ...fields.slice(2),
    ];
    const dir = tableDir(csv, { fields: shared, uniqueKeys: [['code', 'amount']] });
    const { report } = await sameAsOnePass(dir, offsets);
    expect(summary(report)).toEqual([
      `constraint-error@${String(SPLIT_ROW + 5)}@3`,
      `unique-error@${String(SPLIT_ROW + 5)}@1`,
      `primary-key@${String(SPLIT_ROW + 5)}`,
      `unique-error@${String(SPLIT_ROW + 6)}@2`,
      `unique-error@${String(SPLIT_ROW + 7)}@1`,
      `primary-key@${String(SPLIT_ROW + 7)}`,
    ]);
  });

  it.each([
    ['in the first range', 3],
    ['in the second range', 12],
    ['on a key repeated across the ranges', 9],
    ['on a key repeated across the ranges, unique error first', 8],
  ])('with the error limit reached %s', async (_, limit) => {
    const { csv, offsets } = table((row, line) => {
      // Five errors before the split, then a repeat across, then more.
      if (row > SPLIT_ROW - 6 && row < SPLIT_ROW) return line.replace(/,[\d.]+,/, ',-2,');
      const cells = line.split(',');
      if (row === SPLIT_ROW + 3) [cells[0], cells[1]] = ['50', 'c50'];
      if (row > SPLIT_ROW + 3 && row < SPLIT_ROW + 12) cells[2] = 'bad';
      return cells.join(',');
    });
    const { report } = await sameAsOnePass(tableDir(csv), offsets, { limitErrors: limit });
    expect(report.tasks[0]?.errors).toHaveLength(limit);
    expect(report.tasks[0]?.warnings).toContain(`reached error limit: ${String(limit)}`);
  });

  it('with errors picked or skipped', async () => {
    const { csv, offsets } = table((row, line) => {
      const cells = line.split(',');
      if (row === SPLIT_ROW + 2) cells[1] = 'c60';
      if (row === SPLIT_ROW + 3) [cells[0], cells[1]] = ['50', 'c50'];
      if (row === SPLIT_ROW + 4) cells[2] = 'bad';
      return cells.join(',');
    });
    const dir = tableDir(csv);
    const picked = await sameAsOnePass(dir, offsets, {
      pickErrors: ['primary-key'],
      limitErrors: 1,
    });
    expect(summary(picked.report)).toEqual([`primary-key@${String(SPLIT_ROW + 3)}`]);
    const first = await sameAsOnePass(dir, offsets, { pickErrors: ['type-error'], limitErrors: 1 });
    expect(summary(first.report)).toEqual([`type-error@${String(SPLIT_ROW + 4)}@3`]);
    const skipped = await sameAsOnePass(dir, offsets, { skipErrors: ['unique-error'] });
    expect(summary(skipped.report)).toEqual([
      `primary-key@${String(SPLIT_ROW + 3)}`,
      `type-error@${String(SPLIT_ROW + 4)}@3`,
    ]);
  });

  it('when the split lands inside a quoted line break: the first worker reads on', async () => {
    const { csv, offsets } = table((row, line) =>
      row === SPLIT_ROW - 1 ? line.replace('"note', '"two\nlines,\nnote') : line,
    );
    const inside = (offsets[SPLIT_ROW - 2] ?? 0) + 10;
    const dir = tableDir(csv);
    const one = await check(dir, { split: false });
    const events: ValidateEvent[] = [];
    const two = await check(dir, {
      split: { minBytes: 0, at: inside },
      onProgress: (event) => events.push(event),
    });
    expect(withoutSeconds(two)).toEqual(withoutSeconds(one));
    expect(events).toContainEqual({
      type: 'ranges',
      name: 'data',
      joined: false,
      reason: 'the split fell inside a quoted field',
    });
    expect(one.valid).toBe(true);
    expect(one.tasks[0]?.stats.rows).toBe(ROWS);
  });

  it('with comment rows around the split, by character', async () => {
    const { csv, offsets } = table((row, line) =>
      row >= SPLIT_ROW - 1 && row <= SPLIT_ROW + 1 ? `# comment ${String(row)}` : line,
    );
    const dir = tableDir(csv, {}, { dialect: { commentChar: '#' } });
    const { report, split } = await sameAsOnePass(dir, offsets, { limitErrors: 0 });
    expect(split).toBe(true);
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.stats.rows).toBe(ROWS - 3);
  });

  it('with comment rows given by number: one pass', async () => {
    const { csv, offsets } = table();
    const dir = tableDir(csv, {}, { dialect: { commentRows: [SPLIT_ROW + 1] } });
    const { report, split } = await sameAsOnePass(dir, offsets);
    expect(split).toBe(false);
    expect(report.tasks[0]?.stats.rows).toBe(ROWS - 1);
  });

  it('with CRLF line ends and a declared hash', async () => {
    const { csv, offsets } = table(
      (row, line) => (row === SPLIT_ROW + 2 ? `${line},x` : line),
      '\r\n',
    );
    const { createHash } = await import('node:crypto');
    const md5 = createHash('md5').update(csv).digest('hex');
    const right = await sameAsOnePass(tableDir(csv, {}, { hash: `md5:${md5}` }), offsets);
    expect(summary(right.report)).toEqual([`extra-cell@${String(SPLIT_ROW + 2)}@5`]);
    expect(right.report.tasks[0]?.stats.md5).toBe(md5);
    const wrong = await sameAsOnePass(tableDir(csv, {}, { hash: 'md5:0123' }), offsets);
    expect(summary(wrong.report)).toContain('hash-count');
  });

  it('with bad bytes in the second range', async () => {
    const { csv, offsets } = table();
    const bytes = Buffer.from(csv);
    // Line SPLIT_ROW + 5, counted from 0: row SPLIT_ROW + 6.
    bytes[(offsets[SPLIT_ROW + 5] ?? 0) + 2] = 0xff;
    const dir = tablePackage(bytes, { schema: { fields, primaryKey: ['id'] } });
    const same = await sameAsOnePass(dir, offsets);
    // The second worker stops at them, and the first reads on to report them as one pass.
    const outcome = same.events.find((event) => event.type === 'ranges');
    expect(outcome).toMatchObject({ type: 'ranges', joined: false });
    expect(outcome && !outcome.joined ? outcome.reason : '').toMatch(/0xff/);
    expect(summary(same.report)).toEqual(['encoding-error']);
    expect(same.report.tasks[0]?.errors[0]?.note).toContain(`(row ${String(SPLIT_ROW + 6)})`);
  });
});

describe('the key memory of two ranges', () => {
  it('moves keys that are not ASCII from the second range to the first as bytes', async () => {
    const code = (id: number): string => `ç${String(id)}-😀`;
    const { csv, offsets } = table((row, line) => {
      const cells = line.split(',');
      const id = row === SPLIT_ROW + 50 ? 41 : Number(cells[0]);
      return [cells[0], code(id), ...cells.slice(2)].join(',');
    });
    const { report, split } = await sameAsOnePass(tableDir(csv), offsets);
    expect(split).toBe(true);
    expect(
      (report.tasks[0]?.errors ?? []).map((error) => `${error.type}@${String(error.rowNumber)}`),
    ).toEqual([`unique-error@${String(SPLIT_ROW + 50)}`]);
  });

  it('is one budget: a first range whose keys outgrow its half stops the split, and reads on with all of it', async () => {
    const { csv, offsets } = table();
    // A string key table starts at one 16 MB page: past half of 30 MB, within all of it.
    const { events } = await sameAsOnePass(tableDir(csv), offsets, { keyMemory: 30 * 1024 * 1024 });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'ranges',
        joined: false,
        reason: 'the keys of the first range outgrew its half of the key memory',
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'keys', spilled: false, budget: 30 * 1024 * 1024 }),
    );
  });

  it('says how it was spent when the ranges are joined: the keys of each worker, none on disk', async () => {
    const { csv, offsets } = table();
    const { events, split } = await sameAsOnePass(tableDir(csv), offsets);
    expect(split).toBe(true);
    const spent = events.find((event) => event.type === 'keys');
    expect(spent).toMatchObject({ type: 'keys', spilled: false });
    expect(spent?.type === 'keys' && spent.secondRange).toBeGreaterThan(0);
    expect(spent?.type === 'keys' && spent.inMemory).toBeGreaterThan(0);
  });
});

describe('two byte ranges, the second in a worker the caller starts', () => {
  it('give the report of one pass, and a split inside quotes is abandoned', async () => {
    const { validateIsolated } = await import('../../packages/core/src/validator/isolated.js');
    const { csv, offsets } = table((row, line) => {
      const cells = line.split(',');
      if (row === SPLIT_ROW + 3) [cells[0], cells[1]] = ['50', 'c50'];
      if (row === SPLIT_ROW - 1) return line.replace('"note', '"two\nlines,\nnote');
      return cells.join(',');
    });
    const dir = tableDir(csv);
    const one = await check(dir, { split: false });
    expect(summary(one)).toEqual([
      `unique-error@${String(SPLIT_ROW + 3)}@2`,
      `primary-key@${String(SPLIT_ROW + 3)}`,
    ]);
    for (const [at, joined] of [
      [(offsets[SPLIT_ROW - 1] ?? 0) - 1, true],
      [(offsets[SPLIT_ROW - 2] ?? 0) + 10, false],
    ] as const) {
      const events: ValidateEvent[] = [];
      const two = await validateIsolated(dir, {
        silenceMs: 10_000,
        split: { minBytes: 0, at },
        onProgress: (event) => events.push(event),
      });
      expect(withoutSeconds(two)).toEqual(withoutSeconds(one));
      expect(events.find((event) => event.type === 'ranges')).toMatchObject({ joined });
    }
  });
});

describe('the second range', () => {
  it('is asked for once the header is read, not after the first chunk', async () => {
    const { MessageChannel } = await import('node:worker_threads');
    const { readTable } = await import('../../packages/core/src/validator/table/read.js');
    const { rangeSplitFor } =
      await import('../../packages/core/src/validator/table/range-split.js');
    const { TableValidator } =
      await import('../../packages/core/src/validator/table/table-validator.js');
    const { TaskCollector } = await import('../../packages/core/src/validator/report/task.js');
    const { compileField } = await import('../../packages/core/src/validator/schema/field.js');
    const { resolveDialect } = await import('../../packages/core/src/validator/table/dialect.js');
    const { csv } = table();
    const location = join(tableDir(csv), 'data.csv');
    const schema = { fields };
    const limits = { limitErrors: 1000 };
    const keys = { primaryKey: [0], uniqueKeys: [], foreignKeys: [] };
    const validator = new TableValidator(
      fields.map((field) => compileField(field, schema, 2)),
      resolveDialect(undefined, '', ',').layout,
      keys,
      'exact',
      new TaskCollector('data', 'table', location, limits),
    );
    const { port1, port2 } = new MessageChannel();
    let records = 0;
    let recordsAtRequest: number | undefined;
    const post = port1.postMessage.bind(port1);
    port1.postMessage = (message: unknown) => {
      recordsAtRequest ??= records;
      post(message);
    };
    // The second range's worker, played here: it declines, and the first reads on alone.
    port2.on('message', () => {
      port2.postMessage({ type: 'range', result: { ok: false, reason: 'declined' } });
    });
    const split = await rangeSplitFor(
      {
        locations: [location],
        format: 'csv',
        inline: false,
        onePass: false,
        options: { minBytes: 0 },
        takeWorker: () => port1,
      },
      validator,
      { schema, version: 2, keys, fieldsMatch: 'exact', limits, keyMemory: 1 << 20 },
    );
    const read = await readTable(
      {
        locations: [location],
        encoding: undefined,
        dialect: undefined,
        defaultDelimiter: undefined,
        hashes: [],
        fetch: () => Promise.reject(new Error('nothing to fetch')),
        split,
      },
      {
        record: (cells) => {
          records++;
          validator.record(cells);
        },
        get open() {
          return validator.open;
        },
      },
    );
    split?.stop();
    port2.close();
    expect(read.complete).toBe(true);
    expect(records).toBe(ROWS + 1);
    expect(recordsAtRequest).toBe(1);
  });
});

describe('two byte ranges, the first read in this thread beside a range worker started at once', () => {
  it('give the report of one pass, with the worker handed on before the split is planned', async () => {
    const { threadRangeWorker } =
      await import('../../packages/core/src/validator/table/range-split.js');
    const { csv } = table((row, line) =>
      row === SPLIT_ROW + 3 ? line.replace(/^\d+,c\d+/, '50,c50') : line,
    );
    const dir = tableDir(csv);
    const one = await check(dir, { split: false });
    expect(summary(one)).toEqual([
      `unique-error@${String(SPLIT_ROW + 3)}@2`,
      `primary-key@${String(SPLIT_ROW + 3)}`,
    ]);
    const range = threadRangeWorker();
    try {
      const events: ValidateEvent[] = [];
      const two = await check(dir, {
        ...range.options,
        split: { ...range.options.split, minBytes: 0 },
        onProgress: (event) => events.push(event),
      });
      expect(withoutSeconds(two)).toEqual(withoutSeconds(one));
      expect(events.find((event) => event.type === 'ranges')).toMatchObject({ joined: true });
    } finally {
      range.end();
    }
  });

  it('split at the first line feed past the first range share of the bytes', async () => {
    const { planRanges } = await import('../../packages/core/src/validator/table/ranges.js');
    const { THREAD_FIRST_SHARE } =
      await import('../../packages/core/src/validator/table/range-split.js');
    const { csv, offsets } = table();
    const file = join(tableDir(csv), 'data.csv');
    const size = Buffer.byteLength(csv);
    const lineAfter = (share: number) =>
      offsets.find((offset) => offset > Math.floor(size * share));
    expect(await planRanges(file, { minBytes: 0 })).toEqual({
      location: file,
      at: lineAfter(0.5),
      size,
    });
    const plan = await planRanges(file, { minBytes: 0, firstShare: THREAD_FIRST_SHARE });
    expect(plan?.at).toBe(lineAfter(THREAD_FIRST_SHARE));
    expect(plan?.at).toBeGreaterThan(lineAfter(0.5) ?? size);
  });
});
