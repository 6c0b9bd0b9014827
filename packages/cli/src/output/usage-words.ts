import { visibleLayout } from '@data/core';

/**
 * Commander's usage errors in the words of data's own: an argument by its name as `--help`
 * shows it (`<org>`), an option by its flag, the value given quoted, and the reason. All of
 * it made visible: a control character given is shown escaped, never sent to the terminal
 * (line breaks are kept: commander's suggestion is on a line of its own). Any message not
 * matched is commander's own.
 */
const REWRITES: [RegExp, (...parts: string[]) => string][] = [
  [
    /^command-argument value '(.*)' is invalid for argument '(.+?)'\. (.*)$/s,
    (value, name, reason) => `<${name}> cannot be "${value}": ${reason}`,
  ],
  [
    /^option '(\S+)[^']*' argument '(.*)' is invalid\. Allowed choices are (.*)\.$/s,
    (flag, value, choices) => `${flag} cannot be "${value}": choose ${orList(choices)}`,
  ],
  [
    /^option '(\S+)[^']*' argument '(.*)' is invalid\. (.*)$/s,
    (flag, value, reason) => `${flag} cannot be "${value}": ${reason}`,
  ],
  [/^missing required argument '(.+)'$/s, (name) => `missing required argument <${name}>`],
  [/^option '(\S+)[^']*' argument missing$/s, (flag) => `${flag} needs a value`],
  [/^required option '(\S+)[^']*' not specified$/s, (flag) => `${flag} is required`],
  [/^unknown option '(.*?)'(.*)$/s, (flag, rest) => `there is no option ${flag}${rest}`],
  [/^unknown command '(.*?)'(.*)$/s, (name, rest) => `there is no command "${name}"${rest}`],
];

/** `read, publish, admin` as `read, publish or admin`. */
function orList(list: string): string {
  const items = list.split(', ');
  const last = items.pop() ?? '';
  return items.length === 0 ? last : `${items.join(', ')} or ${last}`;
}

/** A usage error of commander's (`error: …`, or without the prefix) in data's words. */
export function usageWords(message: string): string {
  const text = message.replace(/^error: /, '').trim();
  for (const [pattern, words] of REWRITES) {
    const parts = pattern.exec(text);
    if (parts) return visibleLayout(words(...parts.slice(1)));
  }
  return visibleLayout(text);
}
