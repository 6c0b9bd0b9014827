/**
 * An error that becomes an HTTP answer: a status and a message, never a stack. Its own
 * module, so that services throw it without depending on the HTTP side.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly asText = false,
  ) {
    super(message);
  }
}
