import { it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { observeVariant } from '../../helpers/erps/observe.js';
import { CORRECT } from '../../helpers/erps/zoo.js';
it('dbg', async () => {
  for (const name of ['webhook only', 'a queue']) {
    const v = CORRECT.find((x) => x.name.startsWith(name))!;
    const e0 = performance.eventLoopUtilization();
    const c0 = process.cpuUsage();
    const o = await observeVariant(v);
    const e = performance.eventLoopUtilization(e0);
    const c = process.cpuUsage(c0);
    process.stderr.write(`XX ${name} ${o.seconds}s complete ${o.report.complete} ELU ${e.utilization.toFixed(3)} active ${(e.active).toFixed(0)}ms cpu(all threads) ${((c.user + c.system) / 1000).toFixed(0)}ms\n`);
  }
}, 300000);
