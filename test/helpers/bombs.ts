import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { writeOds } from './workbook.js';

/**
 * Files a few bytes long that spell far more than they hold, as an attacker makes them.
 * Each is built here, as it is needed: none is kept in the repository.
 */

/** An .ods of under a kilobyte whose one row of 16,384 cells repeats 1,048,576 times. */
export async function writeOdsBomb(path: string): Promise<void> {
  await writeOds(
    path,
    '<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/></table:table-row>',
  );
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** `count` bytes of blanks, a megabyte at a time, between a head and a tail. */
function blanks(head: string, count: number, tail: string): Readable {
  const block = Buffer.alloc(1024 * 1024, 0x20);
  return Readable.from(
    (function* () {
      yield Buffer.from(head);
      for (let left = count; left > 0; left -= block.length)
        yield left >= block.length ? block : block.subarray(0, left);
      yield Buffer.from(tail);
    })(),
  );
}

/**
 * An .xlsx whose one shared string (`shared`) or inline string is `blanks` spaces in one text
 * run: 600 million spaces compress to about 600 KB.
 */
export async function writeXlsxTextBomb(
  path: string,
  count: number,
  where: 'shared' | 'inline',
): Promise<void> {
  const zip = new yazl.ZipFile();
  const add = (name: string, text: string): void => {
    zip.addBuffer(Buffer.from(text), name);
  };
  add(
    '[Content_Types].xml',
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  );
  add(
    '_rels/.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  add(
    'xl/workbook.xml',
    `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="only" sheetId="1" r:id="s1"/></sheets></workbook>`,
  );
  add(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="s2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  const sheet = (cell: Readable | string): void => {
    if (typeof cell === 'string')
      add(
        'xl/worksheets/sheet1.xml',
        `<worksheet xmlns="${MAIN}"><sheetData><row r="1">${cell}</row></sheetData></worksheet>`,
      );
    else zip.addReadStream(cell, 'xl/worksheets/sheet1.xml', { compressionLevel: 1 });
  };
  if (where === 'shared') {
    zip.addReadStream(
      blanks(`<sst xmlns="${MAIN}"><si><t>`, count, '</t></si></sst>'),
      'xl/sharedStrings.xml',
      { compressionLevel: 1 },
    );
    sheet('<c t="s"><v>0</v></c>');
  } else {
    add('xl/sharedStrings.xml', `<sst xmlns="${MAIN}"/>`);
    sheet(
      blanks(
        `<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c t="inlineStr"><is><t>`,
        count,
        '</t></is></c></row></sheetData></worksheet>',
      ),
    );
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** YAML's "billion laughs": nine levels of aliases, each naming the one above nine times. */
export function yamlAliasBomb(): string {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level < 9; level++) {
    const above = `*a${String(level - 1)}`;
    lines.push(`a${String(level)}: &a${String(level)} [${Array(9).fill(above).join(', ')}]`);
  }
  lines.push('name: laughs', 'resources: *a8');
  return `${lines.join('\n')}\n`;
}
