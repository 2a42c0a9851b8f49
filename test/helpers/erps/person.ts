import { ok, type Api } from './api.js';
import { markSoldOut, type PublishStyle } from './catalog.js';
import { FINAL } from './back-office.js';
import type { Task } from '../../../checks/tasks.js';
import { request } from '../http.js';

// The person at the ERP's screens: reads the session's tasks (as a CI driver reads
// GET /_emulator/homologation/{integration_id}) and does each one in the ERP, at human speed.

export interface Person {
  /** Task ids done, in order. */
  done: string[];
  errors: string[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the person does for one task, through the ERP's own API calls. */
export async function doTask(api: Api, style: PublishStyle, task: Task): Promise<void> {
  const order = task.order_id ? (await api.get(`/orders/${task.order_id}`)).body?.data : null;
  const move = async (body: Record<string, unknown>) => {
    const a = await api.write('POST', `/orders/${task.order_id}/status`, body);
    if (!ok(a)) throw new Error(`${task.id} ${String(body.status)}: ${a.status} ${a.body?.error?.code}`);
  };
  switch (task.action) {
    case 'reject_order':
      if (FINAL.includes(order.status)) return;
      // "Reject it before your ERP accepts it": when the ERP accepted it first, cancel it instead.
      if (order.status === 'pending') return move({ status: 'rejected', reason: 'No podemos preparar este pedido hoy' });
      return move({ status: 'cancelled', reason: 'El local no puede preparar este pedido' });
    case 'cancel_order':
      if (FINAL.includes(order.status)) return;
      if (order.status === 'pending') await move({ status: 'accepted', estimated_minutes: 25 });
      return move({ status: 'cancelled', reason: 'El cliente llamó para cancelar' });
    case 'mark_unavailable':
      return markSoldOut(api, style, task.external_id!);
    case 'import_after_failure': {
      const a = await api.write('POST', `/orders/${task.order_id}/ack`, { external_id: `ZOO-GEN-${order.number}` });
      if (!ok(a)) throw new Error(`${task.id} ack: ${a.status} ${a.body?.error?.code}`);
    }
  }
}

/**
 * Reads the open tasks every 500 ms and does each once, `delayMs()` after first seeing it (a person
 * reads the instruction, then acts). With `after`, not before it resolves for the task's order
 * either (an ERP whose automation comes first by its nature, whatever the machine's load).
 */
export function startPerson(adminUrl: string, integrationId: string, api: Api, style: PublishStyle, delayMs: () => number, after?: (orderId: string, stopped: () => boolean) => Promise<void>): Person {
  const person: Person = { done: [], errors: [], stop: async () => undefined };
  const taken = new Set<string>();
  const work: Promise<void>[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await request<{ data: { tasks: Task[] } }>(`${adminUrl}/homologation/${integrationId}`, 'GET');
        const tasks = res.body.data.tasks;
        for (const task of tasks.filter((t) => t.status === 'open' && !taken.has(t.id))) {
          taken.add(task.id);
          const ready = task.order_id && after ? after(task.order_id, () => stopped) : undefined;
          work.push(Promise.all([sleep(delayMs()), ready]).then(async () => {
            if (stopped) return;
            await doTask(api, style, task);
            person.done.push(task.id);
          }).catch((e: unknown) => void person.errors.push(String(e))));
        }
      } catch (error) {
        if (!stopped) person.errors.push(`person: ${String(error)}`);
      }
      await sleep(500);
    }
  })();
  person.stop = async () => {
    stopped = true;
    await loop;
    await Promise.allSettled(work);
  };
  return person;
}
