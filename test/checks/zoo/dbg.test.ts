import { beforeAll, it } from 'vitest';
import { ensureBuilt } from '../../helpers/cli.js';
import { observeVariant, notPassed, slots } from '../../helpers/erps/observe.js';
import { FAULTY, CORRECT } from '../../helpers/erps/zoo.js';
beforeAll(ensureBuilt, 180000);
const session = slots(3);
it('dbg', async () => {
  const names = (process.env.V ?? '').split('|');
  const vs = [...CORRECT, ...FAULTY].filter((x) => names.some((n) => x.name.startsWith(n)));
  await Promise.all(Array.from({ length: Number(process.env.N ?? 3) }, (_, i) => vs.map((v) => session(async () => {
    const o = await observeVariant({ ...v, budgetSeconds: 40 });
    const r = o.report.checks.find((c) => c.id === 'retries')!;
    process.stderr.write(`XX ${v.name.slice(0, 30)} #${i} ${o.seconds}s complete ${o.report.complete} retries ${r.status}: ${r.reason}\n` + (r.status !== 'pass' ? r.evidence.map((e) => `XX    ${e.ok ? 'ok' : 'x '} ${e.step}: ${e.actual ?? e.status} [${e.request_id}]`).join('\n') + '\n' : ''));
  }))).flat());
}, 900000);
