/**
 * One download with one transport, in a process of its own: `lending` (the hand-written
 * HTTP/1.1 client) or `undici` (its request API), both through the same downloadFile and
 * its 16 KB writes. Prints seconds and peak RSS as JSON.
 */
import { rmSync } from 'node:fs';
import { downloadFile } from '../packages/cli/dist/transfers/download.js';
import { lendingFetch } from '../packages/core/dist/http/lending.js';
import { fetch as undiciFetch } from '../packages/core/dist/http/transport.js';

const [transport, url = '', target = ''] = process.argv.slice(2);
const fetch = transport === 'undici' ? undiciFetch : lendingFetch();
rmSync(target, { force: true });
const started = performance.now();
const bytes = await downloadFile(fetch, url, target);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ bytes, seconds, rssMB: process.resourceUsage().maxRSS / 1024 }));
process.exit(0);
