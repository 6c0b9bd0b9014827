/**
 * Resources and the format each is read as, by THE format rule (packages/core/src/model/
 * format.ts): declared `format` in lower case, else `mediatype`, else the path's extension.
 * Every reader of a resource's format (validate, info, sheets, the hub's pipeline and
 * copies) goes through that rule, and the tests of each run this table.
 */
export const FORMAT_TABLE: readonly {
  what: string;
  resource: Record<string, unknown>;
  format: string | undefined;
}[] = [
  { what: 'declared', resource: { path: 'a.txt', format: 'csv' }, format: 'csv' },
  { what: 'declared, upper case', resource: { path: 'a.txt', format: 'CSV' }, format: 'csv' },
  {
    what: 'declared wins over mediatype',
    resource: { path: 'a.csv', format: 'TSV', mediatype: 'text/csv' },
    format: 'tsv',
  },
  {
    what: 'mediatype over extension',
    resource: { path: 'a.csv', mediatype: 'text/tab-separated-values' },
    format: 'tsv',
  },
  {
    what: 'mediatype with parameters, upper case',
    resource: { path: 'a.txt', mediatype: 'Text/CSV; charset=utf-8' },
    format: 'csv',
  },
  {
    what: 'a mediatype that names no format',
    resource: { path: 'a.tsv', mediatype: 'application/octet-stream' },
    format: 'tsv',
  },
  { what: 'extension', resource: { path: 'data/a.CSV' }, format: 'csv' },
  { what: 'workbook extension', resource: { path: 'a.xlsx' }, format: 'xlsx' },
  { what: 'first part of a multipart path', resource: { path: ['a.tsv', 'b.csv'] }, format: 'tsv' },
  { what: 'URL', resource: { path: 'https://example.com/d/a.parquet' }, format: 'parquet' },
  { what: 'no extension', resource: { path: 'data/README' }, format: undefined },
  { what: 'inline data', resource: { data: [['a'], [1]] }, format: undefined },
  { what: 'empty format is none', resource: { path: 'a.csv', format: '' }, format: 'csv' },
  { what: 'a format that is not text', resource: { path: 'a.csv', format: 3 }, format: 'csv' },
];
