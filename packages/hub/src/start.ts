/**
 * startHub as the index gives it: the server's modules (the HTTP handlers, the pipeline, the
 * copies, the pages and what they import), some 70 ms of loading, are loaded when a hub
 * starts, so that the maintenance commands (`data serve gc`, `backup`, `migrate-storage`),
 * which import the same index, load only what they use.
 */
import type { RunningHub, StartOptions } from './server.js';

export async function startHub(options: StartOptions): Promise<RunningHub> {
  const server = await import('./server.js');
  return server.startHub(options);
}
