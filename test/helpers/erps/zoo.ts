import type { ErpSpec, ZooErp } from './erp.js';

// The zoo: small ERPs built in the different ways the spec allows, and ERPs with one fault each.
// Each entry is what its ERP does and the verdict the observer must give it (DESIGN: Homologation,
// "Grading the ERPs the spec allows"). The tests run them against real emulators over HTTP.

export type Verdict = Record<string, 'pass' | 'fail' | 'skip'>;

export const ALL_PASS: Verdict = { connection: 'pass', catalog: 'pass', order_reception: 'pass', signature_rejection: 'pass', import: 'pass', import_recovery: 'pass', statuses: 'pass', retries: 'pass' };

export interface Variant {
  name: string;
  spec: ErpSpec;
  /** The integration's settings, set in the panel before the ERP starts. */
  settings?: { order_status_authority?: 'both' | 'erp' | 'service'; ack_expected?: 'on_receipt' | 'after_acceptance' };
  /** The person's delay before doing a task (ms); default 200 (a quick operator). */
  personMs?: () => number;
  /**
   * The person does a task only once the ERP's own work on its order is done: an ERP that acts "at
   * once" does, by its nature, before a person; a fixed delay only raced it (on a loaded machine the
   * ERP's first write, refused with 503 and 429 and retried after each Retry-After, came later).
   */
  personAfterErp?: boolean;
  /** Something that happens to the ERP while the session runs (a crash and a restart). */
  during?: (erp: ZooErp) => Promise<void>;
  expect: Verdict;
  intake: 'webhook' | 'feed' | 'both';
  /** Longest the test lets the session run (its timeout is far longer: it must end by itself). */
  budgetSeconds?: number;
  /**
   * About how long its session runs on a quiet machine, from its start to its certain verdict (4 s
   * unless given): what the ERP or the session waits for by design. The zoo's files start the longest
   * first, so that the last sessions to end are short ones (measured: 1.5 to 13 s).
   */
  sessionSeconds?: number;
  /** The session's timeout_seconds (default 600): only for an ERP whose verdict is certain at the deadline alone. */
  sessionTimeoutSeconds?: number;
}

const humanSpeed = () => 3000 + Math.random() * 2000;
const quickPoll = () => 300 + Math.random() * 300;
const waitFor = async (test: () => boolean, ms = 30_000) => {
  for (const until = Date.now() + ms; !test() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
};

/** The zoo's variants in the order their files start them: the longest sessions first. */
export const longestFirst = (variants: Variant[]) => [...variants].sort((a, b) => (b.sessionSeconds ?? 4) - (a.sessionSeconds ?? 4));

/** ERPs that follow the spec: every one is certified. */
export const CORRECT: Variant[] = [
  { name: 'webhook only', intake: 'webhook', spec: { intake: 'webhook', policy: { kitchen: 'delivery' } }, expect: ALL_PASS },
  { name: 'feed only, polling at its own interval', intake: 'feed', spec: { intake: 'feed', pollMs: quickPoll, policy: { kitchen: 'delivery' } }, expect: ALL_PASS, sessionSeconds: 2 },
  { name: 'webhook and a feed reconciliation every 5 minutes', intake: 'webhook', spec: { intake: 'both', pollMs: () => 300_000, policy: { kitchen: 'delivery' } }, expect: ALL_PASS },
  { name: 'batch-only catalog', intake: 'webhook', spec: { intake: 'webhook', publish: 'batch', policy: { kitchen: 'delivery' } }, expect: ALL_PASS },
  { name: 'single-endpoint catalog', intake: 'webhook', spec: { intake: 'webhook', publish: 'single', policy: { kitchen: 'delivery' } }, expect: ALL_PASS },
  { name: 'one product with a required option', intake: 'webhook', spec: { intake: 'webhook', publish: 'one_product', policy: { kitchen: 'delivery' } }, expect: ALL_PASS },
  { name: 'a queue: events processed 2 s after the receiver answered', intake: 'webhook', spec: { intake: 'webhook', receiver: { queueMs: 2000 }, policy: { kitchen: 'delivery' } }, expect: ALL_PASS, sessionSeconds: 10 },
  { name: 'accepts every order by itself at once, a person at human speed', intake: 'webhook', personMs: humanSpeed, personAfterErp: true, spec: { intake: 'webhook', policy: { autoAccept: true, kitchen: 'delivery' } }, expect: ALL_PASS, sessionSeconds: 6 },
  {
    name: 'rejects the probe order by a rule of its own',
    intake: 'webhook',
    spec: { intake: 'webhook', policy: { kitchen: 'delivery', finish: (o) => (o.notes.includes('probe') ? { status: 'rejected', reason: 'Pedido de prueba rechazado' } : null) } },
    expect: ALL_PASS,
  },
  {
    name: 'completes the probe order by a rule of its own',
    intake: 'webhook',
    spec: { intake: 'webhook', policy: { kitchen: 'delivery', finish: (o) => (o.notes.includes('probe') ? { status: 'completed' } : null) } },
    expect: ALL_PASS,
  },
  { name: 'order_status_authority service: no status moves', intake: 'webhook', settings: { order_status_authority: 'service' }, spec: { intake: 'webhook', policy: { noMoves: true } }, expect: ALL_PASS },
  {
    name: 'ack_expected after_acceptance: imports once the merchant accepted',
    intake: 'webhook',
    settings: { ack_expected: 'after_acceptance' },
    spec: { intake: 'webhook', policy: { importAfterAcceptance: true, kitchen: 'delivery' } },
    expect: ALL_PASS,
    budgetSeconds: 90,
    sessionSeconds: 13,
  },
  {
    name: 'crashes and restarts mid-session, reconciling from the feed',
    intake: 'both',
    spec: { intake: 'webhook', policy: { kitchen: 'delivery' } },
    during: async (erp) => {
      await waitFor(() => erp.inbox.orders.size > 0);
      await erp.crash();
      await new Promise((r) => setTimeout(r, 2000));
      await erp.restart();
    },
    expect: ALL_PASS,
    sessionSeconds: 8,
  },
  { name: 'slow but legal: answers after 1 s, works after 1.5 s, retries after twice Retry-After', intake: 'webhook', spec: { intake: 'webhook', retry: 'slow', receiver: { answerAfterMs: 1000 }, policy: { kitchen: 'delivery', workAfterMs: 1500 } }, expect: ALL_PASS, budgetSeconds: 90, sessionSeconds: 10 },
  { name: 'publishes its menu only after the session started', intake: 'webhook', spec: { intake: 'webhook', publishAfterMs: 2000, policy: { kitchen: 'delivery' } }, expect: ALL_PASS, sessionSeconds: 8 },
];

/** ERPs with one fault each: exactly the named check fails. */
export const FAULTY: Variant[] = [
  { name: 'retries a 429/503 at once', intake: 'webhook', spec: { intake: 'webhook', retry: 'at_once', policy: { kitchen: 'delivery' } }, expect: { ...ALL_PASS, retries: 'fail' } },
  { name: 'retries under a new Idempotency-Key', intake: 'webhook', spec: { intake: 'webhook', retry: 'new_key', policy: { kitchen: 'delivery' } }, expect: { ...ALL_PASS, retries: 'fail' } },
  { name: 'its receiver answers 500 to everything (after doing the work)', intake: 'webhook', spec: { intake: 'webhook', receiver: { status: 500 }, policy: { kitchen: 'delivery' } }, expect: { ...ALL_PASS, order_reception: 'fail' }, sessionSeconds: 11 },
  { name: 'acts on final orders', intake: 'webhook', spec: { intake: 'webhook', policy: { kitchen: 'delivery', actsOnFinal: true } }, expect: { ...ALL_PASS, statuses: 'fail' } },
  { name: 'accepts bad signatures', intake: 'webhook', spec: { intake: 'webhook', receiver: { verify: false }, policy: { kitchen: 'delivery' } }, expect: { ...ALL_PASS, signature_rejection: 'fail' }, sessionSeconds: 2 },
  { name: 'imports an older order version again', intake: 'webhook', spec: { intake: 'webhook', keepsOlderVersions: true, policy: { kitchen: 'delivery' } }, expect: { ...ALL_PASS, signature_rejection: 'fail' }, sessionSeconds: 1.5 },
  {
    // DESIGN: a task made final by the ERP before the person acts is re-issued once; the second time
    // statuses fails naming the ERP's automatic moves (legal moves, but no person can act on its orders).
    name: 'completes every pickup order by itself at once, before a person can act',
    intake: 'webhook',
    personMs: () => 3000,
    personAfterErp: true,
    spec: { intake: 'webhook', policy: { kitchen: 'delivery', finish: (o) => (o.fulfillment_type === 'pickup' ? { status: 'completed' } : null) } },
    expect: { ...ALL_PASS, statuses: 'fail' },
  },
  {
    // DESIGN: order_status_authority service — a 403 status_authority_denied sent again unchanged
    // fails statuses, naming the setting (and nothing else fails: no status move was expected).
    name: 'order_status_authority service: sends a denied move again unchanged',
    intake: 'webhook',
    settings: { order_status_authority: 'service' },
    spec: { intake: 'webhook', policy: { noMoves: true, repeatsDenied: true } },
    expect: { ...ALL_PASS, statuses: 'fail' },
  },
  {
    // DESIGN: nothing to grade. The session says "publish your catalog first" and makes no order; at
    // its deadline (the only moment the verdict is certain: a product may still come) catalog alone
    // fails with that cause, and what needs the session's orders is skipped, not failed.
    name: 'publishes its menu with no active product',
    intake: 'webhook',
    spec: { intake: 'webhook', publish: 'inactive', policy: { kitchen: 'delivery' } },
    sessionTimeoutSeconds: 8,
    sessionSeconds: 8,
    expect: { connection: 'pass', catalog: 'fail', order_reception: 'skip', signature_rejection: 'skip', import: 'skip', import_recovery: 'skip', statuses: 'skip', retries: 'skip' },
  },
];
