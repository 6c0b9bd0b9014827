import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];

/** A heading's anchor as GitHub makes it: lower case, punctuation gone, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[^]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));
}

/** The relative links of a Markdown page: the file each reaches, and the anchor if any. */
function relativeLinks(page: string): { file: string; anchor: string | undefined }[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => {
      const [path = '', anchor] = target.split('#');
      return { file: path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path), anchor };
    });
}

describe('the documentation', () => {
  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    const broken = relativeLinks(page)
      .filter(
        ({ file, anchor }) =>
          !existsSync(file) ||
          (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)),
      )
      .map(({ file, anchor }) => `${file.slice(ROOT.length + 1)}#${anchor ?? ''}`);
    expect(broken).toEqual([]);
  });

  it.each(PAGES)('%s has each of its headings once', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[^]*?```/g, '');
    const headings = [...text.matchAll(/^#{1,6} .+$/gm)].map((match) => match[0]);
    expect(headings.filter((heading, index) => headings.indexOf(heading) !== index)).toEqual([]);
  });
});
