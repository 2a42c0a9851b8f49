import { describe, expect, it } from 'vitest';
import { parseChangeNotice, RefusedNotices } from '../../../../emulator/adapters/postgres/change-notice.js';

// The sandbox's LISTEN/NOTIFY channel takes notices from anyone who can connect: a notice is used
// only when it is one the adapter sends, whole (issue 24).

describe('a change notice', () => {
  it('is taken whole when it is one the adapter sends', () => {
    const notice = {
      o: 'process-1',
      c: [
        { topic: 'auth', environment: 'test' },
        { topic: 'catalog', environment: 'live', storeId: null },
        { topic: 'orders', environment: 'test', storeId: 'str_1', orderId: 'ord_1' },
        { topic: 'webhooks', environment: 'test', storeId: null, config: true },
        { topic: 'events', environment: 'test', storeId: 'str_1', type: 'order.created' },
        { topic: 'clock', environment: null },
        { topic: 'reset', environment: null },
      ],
      s: 1,
    };
    expect(parseChangeNotice(JSON.stringify(notice))).toEqual(notice);
    expect(parseChangeNotice('{"o":"p","s":1}')).toEqual({ o: 'p', s: 1 });
  });

  it.each([
    ['null'], ['42'], ['"text"'], ['[]'], ['{}'], ['not json'], ['{"o":7,"s":1}'], ['{"o":"","s":1}'], ['{"o":"p"}'], ['{"o":"p","s":2}'],
    ['{"o":"p","c":null}'], ['{"o":"p","c":"orders"}'], ['{"o":"p","c":[null]}'], ['{"o":"p","c":[[]]}'],
    ['{"o":"p","c":[{"topic":"orders"}]}'],
    ['{"o":"p","c":[{"topic":"orders","environment":"test","storeId":null}]}'],
    ['{"o":"p","c":[{"topic":"nonsense","environment":"test"}]}'],
    ['{"o":"p","c":[{"topic":"auth","environment":"prod"}]}'],
    ['{"o":"p","c":[{"topic":"catalog","environment":"test","storeId":{}}]}'],
    ['{"o":"p","c":[{"topic":"webhooks","environment":"test","storeId":null,"config":"yes"}]}'],
    ['{"o":"p","c":[{"topic":"events","environment":"test","storeId":null,"type":"x"}]}'],
    ['{"o":"p","c":[{"topic":"clock"}]}'],
    ['{"o":"p","c":[{"topic":"auth","environment":"test"},{"topic":"clock","environment":"test"}]}'],
    ['{"o":"p","c":[{"topic":"__proto__","environment":"test"}]}'],
  ])('is refused whole when it is not: %s', (payload) => {
    expect(parseChangeNotice(payload)).toBeNull();
  });

  it('is refused when it holds more changes than a notice can', () => {
    const c = Array.from({ length: 1001 }, () => ({ topic: 'clock', environment: null }));
    expect(parseChangeNotice(JSON.stringify({ o: 'p', c }))).toBeNull();
  });
});

describe('refused notices', () => {
  it('are told once, then at most once a minute with how many more came, the payload quoted and cut short', () => {
    const lines: string[] = [];
    let now = 0;
    const refused = new RefusedNotices('merchant_kit_changes', (m) => lines.push(m), () => now);
    refused.refused('null');
    for (let i = 0; i < 500; i++) refused.refused('x\nforged log line');
    expect(lines).toEqual(['ignored a change notice on merchant_kit_changes: not one of this sandbox\'s change notices, payload "null"']);
    now = 60_000;
    refused.refused(`${'y'.repeat(100)}\n`);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`ignored a change notice on merchant_kit_changes: not one of this sandbox's change notices, payload "${'y'.repeat(80)}…" (and 500 more since the last such line)`);
    expect(lines.join('')).not.toContain('\n');
  });
});
