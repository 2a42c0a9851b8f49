import { parentPort, workerData } from 'node:worker_threads';
import { startErp, type ZooErp } from './erp.js';
import { startPerson, type Person } from './person.js';
import { CORRECT, FAULTY } from './zoo.js';

// One zoo ERP and its person in a thread of their own (their own event loop, as an ERP is its own
// program): a busy emulator does not hold their calls back, and they do not hold the emulator's.
// Messages: {type: 'session'} once the session started (the person starts, and what happens to the
// ERP meanwhile); {type: 'close'} → {type: 'closed', errors, personErrors}.

interface Start {
  variant: string;
  baseUrl: string;
  credential: string;
  adminUrl: string;
  integrationId: string;
}

const start = workerData as Start;
const variant = [...CORRECT, ...FAULTY].find((v) => v.name === start.variant);
let erp: ZooErp | undefined;
let person: Person | undefined;
let happening: Promise<void> | undefined;

async function main(): Promise<void> {
  if (!variant) throw new Error(`no zoo variant named "${start.variant}"`);
  erp = await startErp({ baseUrl: start.baseUrl, credential: start.credential }, variant.spec);
  parentPort!.postMessage({ type: 'ready' });
}

parentPort!.on('message', (message: { type: string }) => {
  if (message.type === 'session') {
    person = startPerson(start.adminUrl, start.integrationId, erp!.api, variant!.spec.publish ?? 'mixed', variant!.personMs ?? (() => 200));
    happening = variant!.during?.(erp!).catch((e: unknown) => void erp!.errors.push(`during: ${String(e)}`));
  }
  if (message.type === 'close') {
    void (async () => {
      await happening;
      await person?.stop();
      await erp?.close();
      parentPort!.postMessage({ type: 'closed', errors: erp?.errors ?? [], personErrors: person?.errors ?? [] });
    })();
  }
});

main().catch((e: unknown) => parentPort!.postMessage({ type: 'failed', error: String(e) }));
