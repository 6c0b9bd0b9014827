/** The baseline: a plain node:http file server streaming files from one folder. */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [dir = '.'] = process.argv.slice(2);
const server = createServer((request, response) => {
  const path = join(dir, (request.url ?? '/').replace(/^\/+/, '').replace(/\.\./g, ''));
  try {
    const size = statSync(path).size;
    response.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': size });
    createReadStream(path).pipe(response);
  } catch {
    response.writeHead(404).end();
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `listening on http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`,
  );
});
