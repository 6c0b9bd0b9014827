import { readdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { ResourceDescriptor, SchemaDescriptor } from '@data/core';
import { SourceFailure } from '@data/core';
import { readingOf, V2_PROFILE } from '@data/core';
import { nameFromFile } from '@data/core';
import { EncodingFailure } from '@data/core';

/** Files that describe a folder rather than hold its data. */
const NOT_DATA = /^(datapackage\.(json|ya?ml)|readme(\..*)?|licen[cs]e(\..*)?|\.gitignore)$/i;

/** The data files under a folder, relative, sorted; hidden files and folders are skipped. */
export async function dataFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.split('/').some((part) => part.startsWith('.')))
    .filter((path) => !path.split('/').includes('node_modules'))
    .filter((path) => !NOT_DATA.test(basename(path)))
    .sort();
}

/** A name for each path: from its file name, made unique with its folders when it must be. */
function resourceNames(paths: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const path of paths) {
    let name = nameFromFile(basename(path));
    if (taken.has(name)) name = nameFromFile(path.replace(/\//g, '-'));
    for (let suffix = 2; taken.has(name); suffix++)
      name = `${nameFromFile(basename(path))}-${String(suffix)}`;
    taken.add(name);
    names.set(path, name);
  }
  return names;
}

const KEY_NAME = /^(id|key|code|.*_id|.*_code)$/i;

/**
 * The primary key to try: the first field named like a key (id, code, …_id) of a type a key
 * takes. Validation of the whole table then keeps it or not (see settle.ts), its keys on
 * disk past memory at any size.
 */
function keyCandidate(schema: SchemaDescriptor): string | undefined {
  return schema.fields.find(
    (field) => KEY_NAME.test(field.name) && ['integer', 'string'].includes(field.type ?? 'string'),
  )?.name;
}

export interface Draft {
  $schema?: string;
  name: string;
  resources: ResourceDescriptor[];
}

/** What drafting found that the user should hear of. */
export interface DraftNotes {
  /** Files no table could be read from: left out of the descriptor. */
  leftOut: { path: string; reason: string }[];
  /** Fields renamed because their file's header repeats a label. */
  renamed: { path: string; resource: string; label: string; field: string }[];
}

/**
 * A descriptor for the data files of a folder: each file read as every command reads it
 * (reading.ts), with what a Frictionless reader needs to read it so (encoding, dialect,
 * header row, number and date formats) and the schema its first rows suggest.
 */
export async function draftPackage(
  dir: string,
  name: string,
  signal?: AbortSignal,
  onFile?: (path: string, index: number, total: number) => void,
): Promise<{ draft: Draft; notes: DraftNotes }> {
  const paths = await dataFiles(dir);
  const names = resourceNames(paths);
  const resources: ResourceDescriptor[] = [];
  const notes: DraftNotes = { leftOut: [], renamed: [] };
  let needsV2 = false;
  for (const [index, path] of paths.entries()) {
    signal?.throwIfAborted();
    onFile?.(path, index, paths.length);
    const resource: ResourceDescriptor = { name: names.get(path) ?? 'data', path };
    let reading;
    try {
      reading = await readingOf(resource, { dir }, signal);
    } catch (error) {
      if (error instanceof SourceFailure || error instanceof EncodingFailure) {
        notes.leftOut.push({ path, reason: error.note });
        continue;
      }
      // A file the system will not let be read (permissions, a file gone meanwhile).
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (typeof code === 'string' && !signal?.aborted) {
        notes.leftOut.push({ path, reason: `it cannot be read (${code})` });
        continue;
      }
      throw error;
    }
    needsV2 ||= reading.needsV2;
    for (const [label, field] of reading.renamed)
      notes.renamed.push({ path, resource: resource.name, label, field });
    const schema = reading.schema;
    if (!schema) {
      resources.push({ ...resource, ...reading.properties });
      continue;
    }
    const key = keyCandidate(schema);
    resources.push({
      ...resource,
      ...reading.properties,
      schema: key ? { ...schema, primaryKey: [key] } : schema,
    });
  }
  return { draft: { ...(needsV2 ? { $schema: V2_PROFILE } : {}), name, resources }, notes };
}
