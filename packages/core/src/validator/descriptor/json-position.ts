/**
 * Finds where JSON text stops being valid. JSON.parse does not always say where (V8
 * often reports only the token), and a publisher needs the line and column.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new JsonStop(i);
  };
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = (): void => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail();
    i += match?.[0].length ?? 0;
  };
  const sequence = (close: string, item: () => void): void => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',') fail();
      i++;
      space();
    }
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{') {
      sequence('}', () => {
        string();
        space();
        if (text[i] !== ':') fail();
        i++;
        value();
      });
    } else if (char === '[') sequence(']', value);
    else if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else number();
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (error) {
    if (error instanceof JsonStop) return error.offset;
    throw error;
  }
}

class JsonStop extends Error {
  constructor(readonly offset: number) {
    super('invalid JSON');
  }
}
