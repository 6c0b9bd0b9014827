import { afterEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { entryOptions, entryTime } from '../../packages/hub/src/services/copies/dataset-zip.js';

const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/** The bytes of a small zip of a folder and a file, written with the hub's entry times. */
async function zipAt(time: Date): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addEmptyDirectory('data/', entryTime(time));
  zip.addBuffer(Buffer.from('id\n1\n'), 'data/t.csv', entryOptions('data/t.csv', time));
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The DOS date and time of the first local file header, as its fields say them. */
function dosFields(bytes: Buffer): string {
  const time = bytes.readUInt16LE(10);
  const date = bytes.readUInt16LE(12);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String((date >> 9) + 1980)}-${pad((date >> 5) & 15)}-${pad(date & 31)} ${pad(time >> 11)}:${pad((time >> 5) & 63)}`;
}

describe("the zip's entry times", () => {
  it('are the same bytes in every time zone: the UTC time of the revision, alone', async () => {
    const published = new Date('2026-07-01T23:30:10Z');
    const made: Buffer[] = [];
    for (const tz of ['UTC', 'Asia/Tokyo', 'America/New_York', 'Australia/Lord_Howe']) {
      process.env.TZ = tz;
      made.push(await zipAt(published));
    }
    for (const bytes of made) expect(bytes.equals(made[0] ?? Buffer.alloc(0))).toBe(true);
    expect(dosFields(made[0] ?? Buffer.alloc(0))).toBe('2026-07-01 23:30');
  });
});
