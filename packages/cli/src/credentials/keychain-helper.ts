/**
 * Runs one OS keychain call in a process of its own. On Linux, opening an entry talks to
 * D-Bus synchronously: a bus that never answers would freeze the CLI's main thread, where no
 * time-out can fire. The parent kills this process instead. The request comes on stdin so
 * that the secret never appears in a process listing.
 */
import { AsyncEntry } from '@napi-rs/keyring';

interface KeychainRequest {
  op: 'get' | 'set' | 'delete';
  service: string;
  account: string;
  secret?: string;
}

async function perform(request: KeychainRequest): Promise<unknown> {
  const entry = new AsyncEntry(request.service, request.account);
  if (request.op === 'get') return (await entry.getPassword()) ?? null;
  if (request.op === 'set') return entry.setPassword(request.secret ?? '');
  return entry.deleteCredential();
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
try {
  const value = await perform(JSON.parse(input) as KeychainRequest);
  process.stdout.write(JSON.stringify({ ok: true, value: value ?? null }));
} catch (error) {
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  process.stdout.write(JSON.stringify({ ok: false, error: message }));
}
