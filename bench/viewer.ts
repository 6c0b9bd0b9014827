/**
 * Which engine answers the table viewer (issue 50): DuckDB reading the Parquet copy directly,
 * or SQLite (node:sqlite) with the table imported from that copy on demand. A typed table
 * (integer id, date, number, short text category, free text note; about 1 % of amounts and
 * notes missing) is written as Parquet the way the hub's copies are laid out (zstd pages,
 * groups of 32,768 rows, as packages/core's writer makes them), by DuckDB's COPY since it
 * writes ten million rows in seconds where the JavaScript writer takes minutes. SQLite's
 * import reads the copy with hyparquet (the hub's reader) and builds its indexes: (amount),
 * (category, day), and an FTS5 trigram index over the two text columns for the search.
 *
 * Each question is asked in a fresh process (module load, open and answer counted), the
 * engines alternating in rounds; the figures are medians with the lowest and highest, and
 * the largest peak RSS of the processes. 1,000,000 rows by default; `--rows N` for another
 * size, `--large` for 10,000,000 (171 MB of Parquet and 3.2 GB of SQLite in the
 * temporary directory). `--rounds N` (5), `--questions first,sort,…`, `--dir DIR` (below).
 *
 * Beside the two, `hub`: the hub's own engine (packages/hub's TableViewer.queryTable and its
 * statistics, from the build), asked the same questions as TableQuery objects over the same
 * Parquet file, so that what the viewer adds to DuckDB (its SQL, file_row_number paging, the
 * count of matches it makes before a filtered page, conversions) shows beside DuckDB's own
 * figure. `--engines duckdb,hub` asks only those (SQLite's import is then not made).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as EngineModule from '../packages/hub/src/services/viewer/engine.js';
import type * as StatsModule from '../packages/hub/src/services/viewer/stats.js';

const PAGE = 100;
const WORDS = [
  'rain',
  'river',
  'census',
  'prices',
  'schools',
  'traffic',
  'energy',
  'forest',
  'harbour',
  'wheat',
  'salmon',
  'copper',
  'tram',
  'clinic',
  'library',
  'bridge',
  'orchard',
  'glacier',
  'market',
  'station',
  'meadow',
  'ferry',
  'quarry',
  'vineyard',
  'lighthouse',
  'canal',
];
const QUESTIONS = ['first', 'last', 'sort', 'filter', 'search', 'matches', 'stats'] as const;
type Question = (typeof QUESTIONS)[number];
type Engine = 'duckdb' | 'sqlite' | 'hub';
const ENGINES: Engine[] = ['duckdb', 'sqlite', 'hub'];

interface Answer {
  /** From before the engine's module is loaded to the answer: a fresh process's first ask. */
  ms: number;
  /** The same question asked again in that process, as a running hub would. */
  warmMs: number | null;
  rows: number;
  rssMB: number;
}

/** A small query runner over either engine, so the questions read the same for both. */
interface Runner {
  all(sql: string): Promise<Record<string, unknown>[]>;
}

async function openDuckdb(parquet: string): Promise<Runner> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  const file = parquet.replaceAll("'", "''");
  await connection.run(`create view t as select * from read_parquet('${file}')`);
  await connection.run(
    `create view numbered as select * from read_parquet('${file}', file_row_number = true)`,
  );
  return {
    all: async (sql) => (await connection.runAndReadAll(sql)).getRowObjects(),
  };
}

async function openSqlite(database: string): Promise<Runner> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(database, { readOnly: true });
  return {
    all: (sql) => Promise.resolve(db.prepare(sql).all() as Record<string, unknown>[]),
  };
}

/** The day column as a number of days, for the histogram. */
const dayNumber: Record<Exclude<Engine, 'hub'>, string> = {
  duckdb: "(day - date '1970-01-01')",
  sqlite: "(julianday(day) - julianday('1970-01-01'))",
};

async function histogram(db: Runner, expression: string): Promise<number> {
  const [range] = await db.all(`select min(${expression}) as lo, max(${expression}) as hi from t`);
  const lo = Number(range?.lo ?? 0);
  const width = (Number(range?.hi ?? 0) - lo) / 20 || 1;
  const bins = await db.all(
    `select case when b > 19 then 19 else b end as bin, count(*) as n from (select
       cast((${expression} - ${String(lo)}) / ${String(width)} as integer) as b from t
       where ${expression} is not null) group by bin order by bin`,
  );
  return bins.length;
}

/** The hub's viewer over the bench's Parquet file, as a published revision's Parquet table. */
interface HubViewer {
  ask(question: Question, total: number): Promise<number>;
}

async function openHub(parquet: string): Promise<HubViewer> {
  const hubDist = new URL('../packages/hub/dist/services/viewer/', import.meta.url);
  const { TableViewer } = (await import(new URL('engine.js', hubDist).href)) as typeof EngineModule;
  const { revisionStats } = (await import(new URL('stats.js', hubDist).href)) as typeof StatsModule;
  const { mkdtempSync, symlinkSync } = await import('node:fs');
  const tmpDir = mkdtempSync(join(tmpdir(), 'data-bench-hub-'));
  process.on('exit', () => rmSync(tmpDir, { recursive: true, force: true }));
  const storage = {
    stat: () => Promise.resolve({ size: statSync(parquet).size }),
    materialize: (_key: string, target: string) => Promise.resolve(symlinkSync(parquet, target)),
  };
  const viewer = new TableViewer(
    { storage, tmpDir, log: () => undefined } as never,
    { answer: () => Promise.reject(new Error('none')) } as never,
    { threads: 2 },
  );
  const fields = [
    { name: 'id', type: 'integer' },
    { name: 'day', type: 'date' },
    { name: 'amount', type: 'number' },
    { name: 'category', type: 'string' },
    { name: 'note', type: 'string' },
  ];
  const pkg = {
    descriptor: {
      name: 'bench',
      resources: [{ name: 't', path: 't.parquet', format: 'parquet', schema: { fields } }],
    },
    prefix: 'packages/bench/',
    files: { 't.parquet': 't.parquet' },
    revision: { stats: null },
  } as never;
  const page = async (query: object) => {
    const answer = await viewer.queryTable(pkg, {
      table: 't',
      filters: [],
      offset: 0,
      limit: PAGE,
      ...query,
    });
    if ('unavailable' in answer) throw new Error(answer.message);
    return answer;
  };
  return {
    ask: async (question, total) => {
      switch (question) {
        case 'first':
          return (await page({})).rows.length;
        case 'last':
          return (await page({ offset: total - PAGE })).rows.length;
        case 'sort':
          return (await page({ sort: { column: 'amount', descending: false } })).rows.length;
        case 'filter':
          return (
            await page({
              filters: [
                { column: 'day', kind: 'range', min: '2010-01-01', max: '2011-12-31' },
                { column: 'category', kind: 'equals', value: 'c7' },
              ],
            })
          ).rows.length;
        case 'search':
        case 'matches':
          // The hub counts the matches before the page: both questions are one for it.
          return (await page({ search: 'lighthouse' })).rows.length;
        case 'stats': {
          const { tables } = await revisionStats(viewer, pkg, undefined, 600);
          return tables[0]?.columns.length ?? 0;
        }
      }
    },
  };
}

async function ask(
  engine: Exclude<Engine, 'hub'>,
  db: Runner,
  question: Question,
  total: number,
): Promise<number> {
  switch (question) {
    case 'first':
      return (await db.all(`select * from t limit ${String(PAGE)}`)).length;
    case 'last':
      // SQLite pages by rowid (the import keeps the copy's order), as Datasette does; DuckDB
      // by the file's row number, which skips whole row groups (an offset read them all:
      // 1.1 s at 10,000,000 rows, against 10 ms).
      return (
        await db.all(
          engine === 'sqlite'
            ? `select * from t where rowid > ${String(total - PAGE)} order by rowid`
            : `select * exclude (file_row_number) from numbered where file_row_number >= ${String(total - PAGE)}`,
        )
      ).length;
    case 'sort':
      return (await db.all(`select * from t order by amount limit ${String(PAGE)}`)).length;
    case 'filter': {
      const where = "day between '2010-01-01' and '2011-12-31' and category = 'c7'";
      const page = await db.all(`select * from t where ${where} order by id limit ${String(PAGE)}`);
      await db.all(`select count(*) as n from t where ${where}`);
      return page.length;
    }
    case 'search':
    case 'matches': {
      // Case-insensitive "contains" over the text columns: a scan in DuckDB, the trigram
      // index in SQLite (which answers substrings of three characters or more).
      const where =
        engine === 'duckdb'
          ? "(category ilike '%lighthouse%' or note ilike '%lighthouse%')"
          : 'rowid in (select rowid from search where search match \'"lighthouse"\')';
      // The first page in the table's order (DuckDB keeps the file's order, FTS5 gives rowids
      // in order); how many rows match is its own question, since a page can show it later.
      return question === 'search'
        ? (await db.all(`select * from t where ${where} limit ${String(PAGE)}`)).length
        : (await db.all(`select count(*) as n from t where ${where}`)).length;
    }
    case 'stats': {
      const columns = ['id', 'day', 'amount', 'category', 'note'];
      const parts = columns.flatMap((c) => [
        `count(*) - count(${c}) as ${c}_missing`,
        `count(distinct ${c}) as ${c}_distinct`,
        `min(${c}) as ${c}_min`,
        `max(${c}) as ${c}_max`,
      ]);
      await db.all(`select ${parts.join(', ')} from t`);
      let rows = 1;
      rows += await histogram(db, 'id');
      rows += await histogram(db, dayNumber[engine]);
      rows += await histogram(db, 'amount');
      for (const c of ['category', 'note'])
        rows += (
          await db.all(
            `select ${c} as v, count(*) as n from t group by ${c} order by n desc limit 10`,
          )
        ).length;
      return rows;
    }
  }
}

/** One question in this (fresh) process: the engine's module load and open are counted. */
async function child(engine: Engine, file: string, question: Question, total: number) {
  const started = performance.now();
  let once: () => Promise<number>;
  if (engine === 'hub') {
    const viewer = await openHub(file);
    once = () => viewer.ask(question, total);
  } else {
    const db = engine === 'duckdb' ? await openDuckdb(file) : await openSqlite(file);
    once = () => ask(engine, db, question, total);
  }
  const rows = await once();
  const ms = performance.now() - started;
  const again = performance.now();
  // Statistics are computed once per revision: not asked twice.
  if (question !== 'stats') await once();
  const answer: Answer = {
    ms,
    warmMs: question === 'stats' ? null : performance.now() - again,
    rows,
    rssMB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(answer));
}

/** The table, written as Parquet by DuckDB with the hub's copies' codec and group size. */
async function generate(parquet: string, rows: number): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  const words = `[${WORDS.map((w) => `'${w}'`).join(', ')}]`;
  const word = (salt: number) =>
    `list_element(${words}, cast(hash(i * ${String(salt)}) % ${String(WORDS.length)} as integer) + 1)`;
  await connection.run(`copy (
      select i as id,
        date '2000-01-01' + cast(hash(i) % 9000 as integer) as day,
        case when i % 97 = 0 then null else round(cast(hash(i + 1) % 10000000 as double) / 100, 2) end as amount,
        'c' || cast(hash(i + 2) % 50 as varchar) as category,
        case when i % 89 = 0 then null
          else concat_ws(' ', ${word(3)}, ${word(5)}, ${word(7)}, 'at', ${word(11)}, 'no.', cast(i as varchar)) end as note
      from range(1, ${String(rows + 1)}) as r(i)
    ) to '${parquet}' (format parquet, compression zstd, row_group_size 32768)`);
  connection.closeSync();
}

/** The on-demand import into SQLite, run in its own process so its time and memory show. */
async function importSqlite(parquet: string, database: string): Promise<void> {
  const started = performance.now();
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } =
    await import('hyparquet');
  const { DatabaseSync } = await import('node:sqlite');
  const { zstdDecompressSync } = await import('node:zlib');
  const compressors = {
    ZSTD: (input: Uint8Array, length: number) =>
      zstdDecompressSync(input, { maxOutputLength: Math.max(1, length) }),
  };
  const file = await asyncBufferFromFile(parquet);
  const metadata = await parquetMetadataAsync(file);
  const db = new DatabaseSync(database);
  db.exec(`pragma journal_mode = off; pragma synchronous = off;
    create table t (id integer primary key, day text, amount real, category text, note text)`);
  const insert = db.prepare('insert into t values (?, ?, ?, ?, ?)');
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors });
    db.exec('begin');
    for (const r of rows) {
      const day = r.day instanceof Date ? r.day.toISOString().slice(0, 10) : (r.day as string);
      insert.run(
        r.id as bigint,
        day,
        r.amount as number | null,
        r.category as string,
        r.note as string | null,
      );
    }
    db.exec('commit');
    rowStart = rowEnd;
  }
  const loaded = performance.now();
  db.exec(`create index t_amount on t (amount);
    create index t_category_day on t (category, day);
    create virtual table search using fts5(category, note, content = 't', content_rowid = 'id', tokenize = 'trigram');
    insert into search (search) values ('rebuild');
    vacuum;`);
  db.close();
  process.stdout.write(
    JSON.stringify({
      loadS: (loaded - started) / 1000,
      indexS: (performance.now() - loaded) / 1000,
      rssMB: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

function run(args: string[]): unknown {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as unknown;
}

function spread(values: number[]): string {
  if (values.some(Number.isNaN)) return '–';
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const f = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
  return `${f(median)} (${f(sorted[0] ?? 0)}–${f(sorted.at(-1) ?? 0)})`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    await child(argv[1] as Engine, argv[2] ?? '', argv[3] as Question, Number(argv[4]));
    return;
  }
  if (argv[0] === '--import') {
    await importSqlite(argv[1] ?? '', argv[2] ?? '');
    return;
  }
  const option = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? Number(argv[at + 1]) : undefined;
  };
  const rows = argv.includes('--large') ? 10_000_000 : (option('--rows') ?? 1_000_000);
  const rounds = option('--rounds') ?? 5;
  const text = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  // --questions first,sort,… asks only these (none: only write and import); --dir DIR keeps
  // the files there and reuses them, so a 10,000,000-row run can be split into short runs.
  const questions = (text('--questions')?.split(',') ?? QUESTIONS).filter((q): q is Question =>
    (QUESTIONS as readonly string[]).includes(q),
  );
  const engines = (text('--engines')?.split(',') ?? ENGINES).filter((e): e is Engine =>
    (ENGINES as string[]).includes(e),
  );
  const kept = text('--dir');
  const work = kept ?? mkdtempSync(join(tmpdir(), 'data-bench-viewer-'));
  try {
    const parquet = join(work, `table-${String(rows)}.parquet`);
    const database = join(work, `table-${String(rows)}.sqlite`);
    const mb = (path: string) => (statSync(path).size / 1024 / 1024).toFixed(0);
    if (!existsSync(parquet)) {
      const started = performance.now();
      await generate(parquet, rows);
      console.log(
        `${rows.toLocaleString('en')} rows: Parquet ${mb(parquet)} MB written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    if (engines.includes('sqlite') && !existsSync(database)) {
      const started = performance.now();
      const imported = run(['--import', parquet, database]) as {
        loadS: number;
        indexS: number;
        rssMB: number;
      };
      console.log(
        `SQLite import: ${((performance.now() - started) / 1000).toFixed(1)} s (rows ${imported.loadS.toFixed(1)} s, indexes ${imported.indexS.toFixed(1)} s), ${mb(database)} MB, peak RSS ${imported.rssMB.toFixed(0)} MB`,
      );
    }
    if (questions.length === 0) return;
    const files: Record<Engine, string> = { duckdb: parquet, sqlite: database, hub: parquet };
    const answers = new Map<string, Answer[]>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? engines : [...engines].reverse();
      for (const question of questions)
        for (const engine of order) {
          const answer = run(['--child', engine, files[engine], question, String(rows)]) as Answer;
          const key = `${question} ${engine}`;
          answers.set(key, [...(answers.get(key) ?? []), answer]);
        }
    }
    console.log(
      '\nms: a fresh process (module, open, answer) median (min–max), then the same question again',
    );
    const titles: Record<Engine, string> = {
      duckdb: 'DuckDB fresh',
      sqlite: 'SQLite fresh',
      hub: 'hub queryTable fresh',
    };
    console.log(
      `${'question'.padEnd(10)}${engines.map((engine) => `${titles[engine].padStart(22)}${'again'.padStart(20)}${'RSS MB'.padStart(8)}`).join('')}`,
    );
    for (const question of questions) {
      const cells = engines.flatMap((engine) => {
        const list = answers.get(`${question} ${engine}`) ?? [];
        return [
          spread(list.map((a) => a.ms)).padStart(22),
          spread(list.map((a) => a.warmMs ?? Number.NaN)).padStart(20),
          Math.max(...list.map((a) => a.rssMB))
            .toFixed(0)
            .padStart(8),
        ];
      });
      console.log(`${question.padEnd(10)}${cells.join('')}`);
    }
  } finally {
    if (!kept) rmSync(work, { recursive: true, force: true });
  }
}

await main();
