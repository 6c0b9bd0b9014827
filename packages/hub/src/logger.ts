/**
 * The hub's log: what went wrong that is no client's fault, and, in JSON, every request it
 * answered. Text (the default) is a line per problem for a terminal; JSON is one object per
 * line for a log collector: time, level, message, and what is known of the request (its id,
 * route template, status, duration, user id) or of the revision. No line carries a token, a
 * sign-in code, a signature or a cookie: requests are logged by route template, never by
 * their address or headers.
 */
export type LogFormat = 'text' | 'json';

export interface LogFields {
  level?: 'info' | 'warn' | 'error';
  requestId?: string;
  route?: string;
  method?: string;
  status?: number;
  durationMs?: number;
  userId?: string;
  /** owner id/dataset/revision, for the pipeline's lines. */
  revision?: string;
  /** A line the operator keeps in either format, info or not: who trusted publishing let in. */
  audit?: boolean;
}

export type HubLog = (line: string, fields?: LogFields) => void;

/** A log that hands each line, without its newline, to `write`. */
export function hubLog(format: LogFormat, write: (line: string) => void): HubLog {
  if (format === 'text')
    return (line, fields) => {
      // Requests answered are logged in JSON only: a terminal shows problems.
      if (fields?.level !== 'info' || fields.audit) write(line);
    };
  return (line, fields = {}) =>
    write(
      JSON.stringify({
        time: new Date().toISOString(),
        level: fields.level ?? 'error',
        message: line,
        ...fields,
      }).replace(
        TERMINAL_CONTROLS,
        (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
    );
}

/**
 * What JSON leaves as it is but a terminal reading the log would act on: C1 controls and
 * the marks that reorder text. Written as JSON escapes, the line stays the same JSON.
 */
const TERMINAL_CONTROLS =
  /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
