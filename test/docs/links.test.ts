import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];

/** The relative link targets of a Markdown page, their #fragment left out. */
function relativeLinks(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^([a-z]+:|#)/i.test(target))
    .map((target) => target.split('#')[0] ?? '');
}

describe('the documentation', () => {
  it.each(PAGES)('%s links only to files that exist', (page) => {
    const missing = relativeLinks(page).filter(
      (target) => !existsSync(join(ROOT, dirname(page), target)),
    );
    expect(missing).toEqual([]);
  });
});
