import { writeFileSync } from 'node:fs';
import yazl from 'yazl';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

async function zipOf(parts: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(parts)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * A minimal .xlsx written by hand, for shapes no spreadsheet program writes: `sheetData` is
 * the inside of the sheet's <sheetData>, `strings` the shared strings' <si> elements.
 */
export async function writeXlsx(
  path: string,
  sheetData: string,
  strings = '',
  prefix = '',
): Promise<void> {
  const p = prefix ? `${prefix}:` : '';
  const ns = prefix ? `xmlns:${prefix}="${MAIN}"` : `xmlns="${MAIN}"`;
  const bytes = await zipOf({
    '[Content_Types].xml':
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<${p}workbook ${ns} xmlns:r="${REL}"><${p}sheets><${p}sheet name="only" sheetId="1" r:id="s1"/></${p}sheets></${p}workbook>`,
    'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="s2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    'xl/sharedStrings.xml': `<${p}sst ${ns}>${strings}</${p}sst>`,
    'xl/worksheets/sheet1.xml': `<${p}worksheet ${ns}><${p}sheetData>${sheetData}</${p}sheetData></${p}worksheet>`,
  });
  writeFileSync(path, bytes);
}

/** A minimal .ods whose one table has the given rows (the inside of <table:table>). */
export async function writeOds(path: string, rows: string): Promise<void> {
  const bytes = await zipOf({
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'content.xml': `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="only">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
  });
  writeFileSync(path, bytes);
}
