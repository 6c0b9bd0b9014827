import { stripVTControlCharacters } from 'node:util';

/**
 * How many terminal columns text takes, for the tables: by grapheme (an emoji of several code
 * points, a letter and its accents are one), two for an emoji shown as one and for East Asian
 * wide and full-width characters, none for marks and format characters, one for the rest;
 * colours (escape sequences) take none. The rule of wcwidth and string-width, written here
 * because string-width and its width table are ES modules only, which the CLI's CommonJS
 * bundle can load only by a dynamic import, and the tables are drawn synchronously.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes(stripVTControlCharacters(text)))
    width += graphemeWidth(segment);
  return width;
}

let segmenter: Intl.Segmenter | undefined;

/** The graphemes of text, as a terminal draws them. */
export function graphemes(text: string): Iterable<{ segment: string }> {
  // One for every cell and grapheme measured, made when first asked.
  return (segmenter ??= new Intl.Segmenter()).segment(text);
}

/** Emoji drawn as emoji: by default, or asked for (U+FE0F), and flags (two regional letters). */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}{2}/u;

/**
 * East Asian wide and full-width characters (Unicode's EastAsianWidth W and F): Hangul jamo,
 * CJK radicals, punctuation, kana, ideographs, Yi, Hangul syllables, compatibility forms,
 * full-width forms, Tangut, kana supplements and the ideographs of planes 2 and 3.
 */
const WIDE =
  /[\u1100-\u115F\u2329\u232A\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uA960-\uA97F\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6\u{16FE0}-\u{16FE4}\u{17000}-\u{18CFF}\u{1B000}-\u{1B2FF}\u{1F200}-\u{1F2FF}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}]/u;

/** What takes no column: combining and enclosing marks, format and control characters. */
const NONE = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;

function graphemeWidth(grapheme: string): number {
  if (NONE.test(grapheme)) return 0;
  return EMOJI.test(grapheme) || WIDE.test(grapheme) ? 2 : 1;
}
