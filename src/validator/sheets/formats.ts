const SPREADSHEET_FORMATS = new Set(['xlsx', 'xlsm', 'xls', 'ods']);

/** Whether a format is a workbook's, read as sheets rather than text. */
export function isSpreadsheet(format: string | undefined): boolean {
  return format !== undefined && SPREADSHEET_FORMATS.has(format);
}
