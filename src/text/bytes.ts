/** A size as a limit is told: whole megabytes, or bytes below one. */
export function describeBytes(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${String(Math.round(mb))} MB` : `${String(bytes)} bytes`;
}
