import { describe, expect, it } from 'vitest';
import { COLORS } from '../../packages/core/src/text/palette.js';
import {
  terminalSafe,
  visible,
  visibleDeep,
  visibleLayout,
} from '../../packages/core/src/text/visible.js';

describe('text made visible', () => {
  it.each([
    ['\u001b[2J', '\\x1b[2J'],
    ['\u001b]52;c;aGk=\u0007', '\\x1b]52;c;aGk=\\x07'],
    ['a\rb', 'a\\rb'],
    ['\u0000\u0008\u007f', '\\x00\\x08\\x7f'],
    ['\u009b31m', '\\x9b31m'],
    ['\u202egnp.exe', '\\u202egnp.exe'],
    ['\u2066x\u2069\u200e\u200f\u061c', '\\u2066x\\u2069\\u200e\\u200f\\u061c'],
    ['tab\there\nline', 'tab\\there\\nline'],
    ['plain text, été, 漢字, 🙂', 'plain text, été, 漢字, 🙂'],
  ])('shows %j as %j within a line', (text, shown) => {
    expect(visible(text)).toBe(shown);
  });

  it('keeps tabs and line feeds where they are the layout, and nothing else', () => {
    expect(visibleLayout('a\tb\nc\r\u001b[1A')).toBe('a\tb\nc\\r\\x1b[1A');
  });

  it('lets through the colours this program writes, and no other sequence', () => {
    const ours = COLORS.red(COLORS.bold('x')) + COLORS.dim('y') + COLORS.cyan('z');
    expect(terminalSafe(ours)).toBe(ours);
    expect(terminalSafe(`${ours}\u001b[8mhidden\u001b[1A\u001b[2K`)).toBe(
      `${ours}\\x1b[8mhidden\\x1b[1A\\x1b[2K`,
    );
    expect(terminalSafe('\u001b[31')).toBe('\\x1b[31');
  });

  it('makes every string of a value visible, names too, keeping the layout of the keys named', () => {
    expect(
      visibleDeep(
        { 'a\u001b': 'x\ny', description: 'p\nq\u001b', list: [{ cell: '\u0007' }], n: 1 },
        new Set(['description']),
      ),
    ).toEqual({ 'a\\x1b': 'x\\ny', description: 'p\nq\\x1b', list: [{ cell: '\\x07' }], n: 1 });
  });
});
