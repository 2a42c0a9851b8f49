import { parentPort } from 'node:worker_threads';
import { startErp, type ZooErp } from './erp.js';
import { startPerson, type Person } from './person.js';
import { CORRECT, FAULTY, type Variant } from './zoo.js';

// A zoo ERP and its person in a thread of their own (their own event loop, as an ERP is its own
// program): a busy emulator does not hold their calls back, and they do not hold the emulator's.
// The thread serves one ERP after another (loading its modules is most of a thread's start, about
// 0.2 s of CPU, paid once per thread rather than once per session); each ERP is closed, with its
// person, its receiver and its client, before the next one starts.
// Messages: {type: 'start', ...Start} → {type: 'ready'} (or {type: 'failed', error}); {type:
// 'session'} once the session started (the person starts, and what happens to the ERP meanwhile);
// {type: 'close'} → {type: 'closed', errors, personErrors}.

interface Start {
  variant: string;
  baseUrl: string;
  credential: string;
  adminUrl: string;
  integrationId: string;
}

let start: Start | undefined;
let variant: Variant | undefined;
let erp: ZooErp | undefined;
let person: Person | undefined;
let happening: Promise<void> | undefined;

async function begin(given: Start): Promise<void> {
  start = given;
  variant = [...CORRECT, ...FAULTY].find((v) => v.name === given.variant);
  if (!variant) throw new Error(`no zoo variant named "${given.variant}"`);
  erp = await startErp({ baseUrl: given.baseUrl, credential: given.credential }, variant.spec);
  parentPort!.postMessage({ type: 'ready' });
}

async function close(): Promise<void> {
  await happening;
  await person?.stop();
  await erp?.close();
  parentPort!.postMessage({ type: 'closed', errors: erp?.errors ?? [], personErrors: person?.errors ?? [] });
  start = variant = erp = person = happening = undefined;
}

parentPort!.on('message', (message: { type: string } & Start) => {
  if (message.type === 'start') begin(message).catch((e: unknown) => parentPort!.postMessage({ type: 'failed', error: String(e) }));
  if (message.type === 'session') {
    const afterErp = variant!.personAfterErp ? (orderId: string, stopped: () => boolean) => erp!.inbox.handled(orderId, stopped) : undefined;
    person = startPerson(start!.adminUrl, start!.integrationId, erp!.api, variant!.spec.publish ?? 'mixed', variant!.personMs ?? (() => 200), afterErp);
    happening = variant!.during?.(erp!).catch((e: unknown) => void erp!.errors.push(`during: ${String(e)}`));
  }
  if (message.type === 'close') void close();
});
