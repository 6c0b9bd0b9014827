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

/**
 * An .ods with a header of `columns` distinct labels, written out, under a row of as many
 * numbers repeated 1,048,576 times: no row of it is an error, so no error limit ends its read.
 */
export async function writeOdsBombWithHeader(path: string, columns: number): Promise<void> {
  const labels = Array.from(
    { length: columns },
    (_, index) =>
      `<table:table-cell office:value-type="string"><text:p>c${String(index)}</text:p></table:table-cell>`,
  ).join('');
  await writeOds(
    path,
    `<table:table-row>${labels}</table:table-row><table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="${String(columns)}" office:value-type="float" office:value="1"/></table:table-row>`,
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

/** `count` bytes of one short shared string after another, a megabyte at a time. */
function manyStrings(head: string, count: number, tail: string): Readable {
  const one = '<si><t>a</t></si>';
  const block = Buffer.from(one.repeat(Math.floor((1024 * 1024) / one.length)));
  return Readable.from(
    (function* () {
      yield Buffer.from(head);
      for (let left = count; left > 0; left -= block.length) yield block;
      yield Buffer.from(tail);
    })(),
  );
}

/**
 * An .xlsx whose one shared string (`shared`) or inline string is `count` spaces in one text
 * run (600 million spaces compress to about 600 KB), or whose shared strings are `count`
 * bytes of one short text after another (`many`).
 */
export async function writeXlsxTextBomb(
  path: string,
  count: number,
  where: 'shared' | 'inline' | 'many',
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
  if (where === 'many') {
    zip.addReadStream(
      manyStrings(`<sst xmlns="${MAIN}">`, count, '</sst>'),
      'xl/sharedStrings.xml',
      { compressionLevel: 1 },
    );
    sheet('<c t="s"><v>0</v></c>');
  } else if (where === 'shared') {
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

/**
 * A 1.5 KB legacy workbook (a Compound File Binary of one FAT sector and one directory
 * sector) whose Workbook stream starts at a sector past the file's end whose chain names
 * itself: a reader that follows it without counting never stops.
 */
export function xlsChainBomb(): Buffer {
  const size = 512;
  const file = Buffer.alloc(size * 3);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(file, 0);
  file.writeUInt16LE(0x3e, 24);
  file.writeUInt16LE(3, 26);
  file.writeUInt16LE(0xfffe, 28);
  file.writeUInt16LE(9, 30);
  file.writeUInt16LE(6, 32);
  file.writeUInt32LE(1, 44); // FAT sectors
  file.writeInt32LE(1, 48); // the directory's first sector
  file.writeUInt32LE(4096, 56); // the mini stream cutoff
  file.writeInt32LE(-2, 60); // no mini FAT
  file.writeInt32LE(-2, 68); // no DIFAT
  for (let i = 0; i < 109; i++) file.writeInt32LE(i === 0 ? 0 : -1, 76 + i * 4);
  const fat = size;
  for (let i = 0; i < size / 4; i++) file.writeInt32LE(-1, fat + i * 4);
  file.writeInt32LE(-3, fat); // sector 0 is the FAT
  file.writeInt32LE(-2, fat + 4); // sector 1, the directory, ends its chain
  const loop = 100;
  file.writeInt32LE(loop, fat + loop * 4);
  const entry = (index: number, name: string, type: number, start: number, bytes: number) => {
    const at = size * 2 + index * 128;
    Buffer.from(`${name}\0`, 'utf16le').copy(file, at);
    file.writeUInt16LE((name.length + 1) * 2, at + 64);
    file.writeUInt8(type, at + 66);
    file.writeUInt8(1, at + 67);
    file.writeInt32LE(-1, at + 68);
    file.writeInt32LE(-1, at + 72);
    file.writeInt32LE(index === 0 ? 1 : -1, at + 76);
    file.writeInt32LE(start, at + 116);
    file.writeUInt32LE(bytes, at + 120);
  };
  entry(0, 'Root Entry', 5, -2, 0);
  entry(1, 'Workbook', 2, loop, 4096);
  return file;
}
