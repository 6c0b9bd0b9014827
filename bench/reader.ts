/**
 * A reader of the hub in a process of its own, so that what the benchmark does meanwhile
 * cannot delay it: GETs the URL every 100 ms and, on SIGTERM, prints its slowest answer in ms.
 */
const url = process.argv[2] ?? '';
let worst = 0;
let running = true;
process.on('SIGTERM', () => (running = false));
while (running) {
  const started = performance.now();
  await (await fetch(url)).arrayBuffer();
  worst = Math.max(worst, performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(`${worst.toFixed(1)}\n`);
