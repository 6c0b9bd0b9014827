import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { isRemote } from '../model/paths.js';
import { isDescriptorPath, packageDescriptor } from '../files/descriptor-file.js';
import { kindOfNonFile } from '../files/chunks.js';

/** The source named on the command line does not exist or cannot be used. */
export class SourceNotFound extends Error {
  override readonly name = 'SourceNotFound';
}

export type Source =
  | { kind: 'descriptor'; location: string; dir?: string; url?: string }
  | { kind: 'table'; location: string; file: string; dir?: string; url?: string };

/** Classifies a folder, descriptor path, URL or data file given by the user. */
export async function resolveSource(input: string): Promise<Source> {
  if (isRemote(input)) {
    const url = new URL(input);
    if (isDescriptorPath(url.pathname)) return { kind: 'descriptor', location: input, url: input };
    return { kind: 'table', location: input, file: basename(url.pathname) || 'data', url: input };
  }
  const info = await stat(input).catch(() => undefined);
  if (!info) throw new SourceNotFound(`"${input}" does not exist`);
  if (info.isDirectory()) {
    const location = await packageDescriptor(input, (message) => new SourceNotFound(message));
    return { kind: 'descriptor', location, dir: input };
  }
  if (!info.isFile()) throw new SourceNotFound(`"${input}" is ${kindOfNonFile(info)}, not a file`);
  if (isDescriptorPath(input)) return { kind: 'descriptor', location: input, dir: dirname(input) };
  return { kind: 'table', location: input, file: basename(input), dir: dirname(input) };
}

/** Letters that lose no meaning as two (decomposition leaves them whole). */
const SPELLED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  þ: 'th',
};

/**
 * A resource name derived from a file name, valid under the v1 name pattern (lower-case
 * ASCII letters, digits, `-`, `_`, `.`): letters keep their base letter (`Über` → `uber`),
 * anything else becomes `-`, trimmed at both ends.
 */
export function nameFromFile(file: string): string {
  const stem = file
    .replace(/\.[^.]*$/, '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøłđþ]/g, (letter) => SPELLED[letter] ?? letter)
    .replace(/[^-a-z0-9._]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return stem || 'data';
}
