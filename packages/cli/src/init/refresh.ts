/**
 * `data init --refresh`: the `bytes` and `hash` of an existing descriptor brought up to date
 * with its files, each value replaced where it is written and every other byte of the file
 * left as it was (its format, key order, indentation, comments). JSON is read as the YAML
 * it also is, for the places of its values.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileChunks, writeFileAtomic } from '@data/core';
import { isRemote } from '@data/core';

export interface Refreshed {
  resource: string;
  property: 'bytes' | 'hash';
  from: unknown;
  to: unknown;
}

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/** The bytes of a resource's files, and their digest in one algorithm, read as one stream. */
async function measure(
  files: string[],
  algorithm: string | undefined,
): Promise<{ bytes: number; digest: string | undefined }> {
  const hash = algorithm ? createHash(algorithm) : undefined;
  let bytes = 0;
  for (const file of files) {
    if (!hash) {
      bytes += (await stat(file)).size;
      continue;
    }
    for await (const chunk of fileChunks(file)) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  }
  return { bytes, digest: hash?.digest('hex') };
}

/** A hash as the descriptor writes it: its algorithm kept, and the form it is written in. */
function hashParts(value: string): { algorithm: string; prefix: string } | undefined {
  const [first, second] = value.split(':', 2);
  if (second === undefined) return { algorithm: 'md5', prefix: '' };
  return first === 'md5' || first === 'sha256'
    ? { algorithm: first, prefix: `${first}:` }
    : undefined;
}

/** A new value written as the old one was: quoted the same way, or plain. */
function written(node: { source?: string; type?: string }, raw: string, value: unknown): string {
  if (typeof value === 'number') return String(value);
  const text = String(value);
  if (raw.startsWith('"') || node.type === 'QUOTE_DOUBLE') return JSON.stringify(text);
  if (raw.startsWith("'")) return `'${text}'`;
  return text;
}

/**
 * Refreshes the descriptor at `file` in place; returns what changed (nothing, when every
 * `bytes` and `hash` is right). Only values already there change: none is added.
 */
export async function refreshDescriptor(file: string): Promise<Refreshed[]> {
  const { parseDocument, isMap, isSeq, isScalar } = await import('yaml');
  const text = await readFile(file, 'utf8');
  const document = parseDocument(text, { keepSourceTokens: true });
  if (document.errors.length > 0) throw new Error(document.errors[0]?.message ?? 'unreadable');
  const resources = document.get('resources');
  if (!isSeq(resources)) return [];
  const dir = dirname(file);
  const changes: Refreshed[] = [];
  const replacements: Replacement[] = [];
  for (const item of resources.items) {
    if (!isMap(item)) continue;
    const path = item.get('path');
    const paths: unknown[] = isSeq(path) ? path.toJSON() : [path];
    if (paths.length === 0 || paths.some((each) => typeof each !== 'string' || isRemote(each)))
      continue;
    const named = item.get('name');
    const name = typeof named === 'string' ? named : '';
    const bytesNode = item.get('bytes', true);
    const hashNode = item.get('hash', true);
    const hash =
      isScalar(hashNode) && typeof hashNode.value === 'string' ? hashNode.value : undefined;
    const parts = hash ? hashParts(hash) : undefined;
    if (!isScalar(bytesNode) && !parts) continue;
    const files = (paths as string[]).map((each) => join(dir, each));
    const found = await measure(files, parts?.algorithm);
    const update = (node: unknown, property: Refreshed['property'], value: unknown): void => {
      if (!isScalar(node) || !node.range) return;
      const same =
        typeof value === 'string'
          ? String(node.value).toLowerCase() === value.toLowerCase()
          : node.value === value;
      if (same) return;
      const [start, end] = node.range;
      replacements.push({ start, end, text: written(node, text.slice(start, end), value) });
      changes.push({ resource: name, property, from: node.value, to: value });
    };
    if (isScalar(bytesNode)) update(bytesNode, 'bytes', found.bytes);
    if (parts && found.digest) update(hashNode, 'hash', `${parts.prefix}${found.digest}`);
  }
  if (replacements.length === 0) return changes;
  let refreshed = text;
  for (const { start, end, text: value } of replacements.sort((a, b) => b.start - a.start))
    refreshed = `${refreshed.slice(0, start)}${value}${refreshed.slice(end)}`;
  await writeFileAtomic(file, refreshed);
  return changes;
}
