import { SourceFailure } from '../location.js';

/** A chain's end, and a sector in no chain, as the compound file format writes them. */
const END_OF_CHAIN = -2;
const FREE = -1;

/** Streams this long or longer are chains of whole sectors; shorter ones live in the mini stream. */
const MINI_STREAM_CUTOFF = 4096;

function refuse(reason: string): SourceFailure {
  return new SourceFailure('format-error', `the .xls workbook is damaged: ${reason}`);
}

/**
 * Checks that the sector chains of a legacy workbook's container (a Compound File Binary,
 * [MS-CFB]) end, and that following them all reads each sector about once, before SheetJS
 * follows them: its reader follows a chain that names itself forever (a 1.5 KB file filled
 * the heap in seconds) and copies a chain once for each sector of it that a stream starts at.
 * The walk is SheetJS's own, counted: at most two visits a sector, which files that programs
 * write, whose chains run forwards, never reach.
 */
export function checkCompoundFile(file: Buffer): void {
  if (file.length < 512) throw refuse('shorter than its header');
  const sectorSize = file.readUInt16LE(26) === 4 ? 4096 : 512;
  const sectors = Math.ceil(file.length / sectorSize) - 1;
  /**
   * The 32-bit number at `offset` of sector `index`, or undefined where the file has no such
   * sector; past the end of a short last sector, bytes read as 0, as SheetJS reads them.
   */
  const numberAt = (index: number, offset: number): number | undefined => {
    if (!Number.isInteger(index) || index < 0 || index >= sectors) return undefined;
    const at = (index + 1) * sectorSize + offset;
    const byte = (k: number): number => file[at + k] ?? 0;
    return byte(0) | (byte(1) << 8) | (byte(2) << 16) | (byte(3) << 24);
  };
  let budget = 2 * sectors + 64;
  const visit = (): void => {
    if (--budget < 0) throw refuse('its sector chains loop or overlap');
  };

  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) {
    const sector = file.readInt32LE(76 + i * 4);
    if (sector < 0) break;
    fatSectors.push(sector);
  }
  let difat = file.readInt32LE(68);
  for (let count = file.readInt32LE(72); ; count--) {
    if (difat === END_OF_CHAIN || difat === FREE || numberAt(difat, 0) === undefined) break;
    visit();
    for (let i = 0; i < sectorSize / 4 - 1; i++) {
      const sector = numberAt(difat, i * 4);
      if (sector === undefined || sector === END_OF_CHAIN) break;
      fatSectors.push(sector);
    }
    if (count < 1) break;
    difat = numberAt(difat, sectorSize - 4) ?? END_OF_CHAIN;
  }
  /** The sector after `sector` in its chain, or undefined where the chain ends. */
  const next = (sector: number): number | undefined => {
    const fat = fatSectors[Math.floor((sector * 4) / sectorSize)];
    if (fat === undefined) return undefined;
    const following = numberAt(fat, (sector * 4) % sectorSize);
    return following !== undefined && following >= 0 ? following : undefined;
  };

  // The chains SheetJS makes of every sector, from the directory's first on.
  const directory = file.readInt32LE(48);
  if (directory < 0 || directory >= sectors) throw refuse('its directory is outside the file');
  const started = new Set<number>();
  const walked = new Set<number>();
  const directorySectors: number[] = [];
  for (let i = 0; i < sectors; i++) {
    const start = (i + directory) % sectors;
    if (walked.has(start)) continue;
    started.add(start);
    const seen = new Set<number>();
    for (let sector: number | undefined = start; sector !== undefined && !seen.has(sector);) {
      visit();
      seen.add(sector);
      walked.add(sector);
      if (start === directory) directorySectors.push(sector);
      sector = next(sector);
    }
  }

  // A stream that starts elsewhere is followed from its start, with no guard against a loop.
  for (const sector of directorySectors)
    for (let entry = 0; entry < sectorSize / 128; entry++) {
      const at = entry * 128;
      const type = file[(sector + 1) * sectorSize + at + 66];
      const start = numberAt(sector, at + 116);
      const size = numberAt(sector, at + 120);
      if (type === 5 || start === undefined || size === undefined) continue;
      if (size < MINI_STREAM_CUTOFF || started.has(start)) continue;
      started.add(start);
      for (let link: number | undefined = start; link !== undefined && link >= 0; link = next(link))
        visit();
    }
}
