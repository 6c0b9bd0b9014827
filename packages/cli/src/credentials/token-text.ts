import { AuthError, UsageError } from '@data/core';

/** What HTTP trims around a field value: spaces, tabs and line ends. */
const AROUND = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** A token is visible ASCII: anything else cannot go in an Authorization header as it is. */
const TOKEN = /^[\x21-\x7e]+$/;

/** A token given by hand, trimmed as HTTP trims it; refused when a header cannot carry it. */
export function tokenText(
  given: string,
  from: 'DATA_TOKEN' | 'standard input' | 'the question',
): string {
  const token = given.replace(AROUND, '');
  if (!token || TOKEN.test(token)) return token;
  const where = from === 'the question' ? 'given' : `in ${from}`;
  const message = `the token ${where} holds a space, a line break or another character no token has`;
  const hint = 'give the token alone, on one line';
  throw from === 'DATA_TOKEN' ? new AuthError(message, hint) : new UsageError(message, hint);
}
