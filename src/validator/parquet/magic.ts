import { fileHead } from '../../files/chunks.js';

/** The four bytes a Parquet file starts (and ends) with. */
const MAGIC = Buffer.from('PAR1');

/** Whether a local file says by its first bytes that it is Parquet; false if unreadable. */
export async function startsAsParquet(path: string): Promise<boolean> {
  try {
    return (await fileHead(path, MAGIC.length)).equals(MAGIC);
  } catch {
    return false;
  }
}
