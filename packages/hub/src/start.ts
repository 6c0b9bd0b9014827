/**
 * startHub as the index gives it: the server's modules (the HTTP handlers, the pipeline, the
 * copies, the pages and what they import), some 70 ms of loading, are loaded when a hub
 * starts, so that the maintenance commands (`data serve gc`, `backup`, `migrate-storage`),
 * which import the same index, load only what they use (test/e2e/hub-index.test.ts).
 */
import type { startHub as serverStartHub } from './server.js';

type StartHub = typeof serverStartHub;

export async function startHub(...options: Parameters<StartHub>): ReturnType<StartHub> {
  const server = await import('./server.js');
  return server.startHub(...options);
}
