const SPREADSHEET_FORMATS = new Set(['xlsx', 'xlsm', 'xls', 'ods']);

/** Whether a format is a workbook's, read as sheets rather than text. */
export function isSpreadsheet(format: string | undefined): boolean {
  return format !== undefined && SPREADSHEET_FORMATS.has(format);
}

/** Whether a format is Parquet's: typed columns, read by row group rather than as text. */
export function isParquet(format: string | undefined): boolean {
  return format === 'parquet';
}
