/**
 * The width rule of the CLI's tables (output/width.ts) against string-width, the library
 * terminals' tools use (here through ora), on the text a token or dataset name may hold.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../packages/cli/src/output/width.js';

const TEXTS = [
  'ci',
  '🔑 deploy',
  '日本語のトークン',
  '👩\u200d💻 dev',
  '🇫🇷 prices',
  'e\u0301te\u0301',
  'ｒｄ',
  '한국어',
  '✓ done',
  '❤\ufe0f',
  'CI <b>"deploy" &amp; ✓',
  '\u001b[31mexpired\u001b[39m',
  'Ελληνικά',
  'العربية',
];

describe('displayWidth', () => {
  it.each(TEXTS)('measures %j as string-width does', (text) => {
    expect(displayWidth(text)).toBe(stringWidth(text));
  });

  it('counts two columns for an emoji or a CJK character, none for a combining mark', () => {
    expect([displayWidth('🔑'), displayWidth('語'), displayWidth('e\u0301')]).toEqual([2, 2, 1]);
  });
});
