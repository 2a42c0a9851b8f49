import { describe, expect, it } from 'vitest';
import { BOUNDED_AMOUNT_PATTERN, parseAmount } from '../../src/contract/amounts.js';
import { buildOpenApiDocument } from '../../src/contract/openapi.js';
import { webhookUrlProblem } from '../../src/contract/webhooks.js';
import { DocumentValidator } from '../helpers/openapi.js';

// issue 10, item 7: each rule of the emulator that JSON Schema can say is said by the document.
// Every row is checked against the document with a JSON Schema 2020-12 validator (formats asserted).

const doc = buildOpenApiDocument();
const v = new DocumentValidator(doc);
const schema = (name: string) => v.at(`/components/schemas/${name}`);
const body = (path: string, method: string) => v.at(`/paths/${path.replaceAll('/', '~1')}/${method}/requestBody/content/application~1json/schema`);
const param = (path: string, method: string, name: string) => {
  const i = (doc.paths[path][method].parameters as { name?: string }[]).findIndex((p) => p.name === name);
  return v.at(`/paths/${path.replaceAll('/', '~1')}/${method}/parameters/${i}/schema`);
};

const product = { name: 'Cola', category_external_id: 'CAT', price: '1000' };
const ops = [{ op: 'deactivate_product', external_id: 'P' }];
const manual = {
  request_key: 'K-1', customer: { name: 'Ana', phone: '0981123456' }, address: { line: 'Calle 1' }, payment_method: 'cash',
  customer_total: 1, customer_fee: 1, courier_fee: 1,
};

type Row = [string, () => (value: unknown) => unknown, unknown, boolean];
const rows: Row[] = [
  ['date-time: a real one', () => schema('Datetime'), '2026-11-22T10:30:00-03:00', true],
  ['date-time: month 13, day 45, hour 25, minute 61', () => schema('Datetime'), '2026-13-45T25:61Z', false],
  ['date-time: February 30', () => schema('Datetime'), '2026-02-30T10:00:00Z', false],
  ['date-time: offset hour 24', () => schema('Datetime'), '2026-11-22T10:30:00+24:00', false],
  ['PATCH product: empty body', () => body('/catalog/products/{external_id}', 'patch'), {}, false],
  ['PATCH product: only source_updated_at', () => body('/catalog/products/{external_id}', 'patch'), { source_updated_at: '2026-11-22T10:30:00Z' }, false],
  ['PATCH product: price', () => body('/catalog/products/{external_id}', 'patch'), { price: '10' }, true],
  ['PATCH option: empty body', () => body('/catalog/options/{external_id}', 'patch'), {}, false],
  ['batch: 500 operations', () => body('/catalog/batch', 'post'), { operations: Array(500).fill({ op: 'deactivate_product', external_id: 'P' }) }, true],
  ['batch: no operations', () => body('/catalog/batch', 'post'), { operations: [] }, false],
  ['batch: 501 operations', () => body('/catalog/batch', 'post'), { operations: Array(501).fill({ op: 'deactivate_product', external_id: 'P' }) }, false],
  ['batch: snapshot_id without full_snapshot', () => body('/catalog/batch', 'post'), { operations: ops, snapshot_id: 'S', snapshot_part: 1 }, false],
  ['batch: snapshot_last with full_snapshot false', () => body('/catalog/batch', 'post'), { operations: ops, full_snapshot: false, snapshot_last: true }, false],
  ['batch: snapshot_id without snapshot_part', () => body('/catalog/batch', 'post'), { operations: ops, full_snapshot: true, snapshot_id: 'S' }, false],
  ['batch: part 2 of a snapshot', () => body('/catalog/batch', 'post'), { operations: ops, full_snapshot: true, snapshot_id: 'S', snapshot_part: 2 }, true],
  ['batch: a one-part snapshot as part 2', () => body('/catalog/batch', 'post'), { operations: ops, full_snapshot: true, snapshot_part: 2 }, false],
  ['batch: a one-part snapshot not last', () => body('/catalog/batch', 'post'), { operations: ops, full_snapshot: true, snapshot_last: false }, false],
  ['status: rejected without reason', () => body('/orders/{order_id}/status', 'post'), { status: 'rejected' }, false],
  ['status: cancelled with reason', () => body('/orders/{order_id}/status', 'post'), { status: 'cancelled', reason: 'Sin stock' }, true],
  ['status: estimated_minutes with preparing', () => body('/orders/{order_id}/status', 'post'), { status: 'preparing', estimated_minutes: 10 }, false],
  ['status: estimated_minutes with accepted', () => body('/orders/{order_id}/status', 'post'), { status: 'accepted', estimated_minutes: 10 }, true],
  ['status: a reason of spaces', () => body('/orders/{order_id}/status', 'post'), { status: 'rejected', reason: '    ' }, false],
  ['entregas: from an order', () => body('/entregas', 'post'), { request_key: 'K-1', order_id: 'ord_01JD0000000000000000000000' }, true],
  ['entregas: an order and manual data', () => body('/entregas', 'post'), { ...manual, order_id: 'ord_01JD0000000000000000000000' }, false],
  ['entregas: manual, complete', () => body('/entregas', 'post'), manual, true],
  ['entregas: manual without courier_fee', () => body('/entregas', 'post'), { ...manual, courier_fee: undefined }, false],
  ['entregas: manual transfer not confirmed', () => body('/entregas', 'post'), { ...manual, payment_method: 'bank_transfer' }, false],
  ['entregas: manual transfer confirmed', () => body('/entregas', 'post'), { ...manual, payment_method: 'bank_transfer', transfer_received: true }, true],
  ['pickup: its own body', () => body('/entregas/{id}/pickup', 'post'), { settlement_confirmed: true }, true],
  ['pickup: the body of raise_fee', () => body('/entregas/{id}/pickup', 'post'), { amount: 9000 }, false],
  ['raise_fee: its own body', () => body('/entregas/{id}/raise_fee', 'post'), { amount: 9000 }, true],
  ['cancel: the body of returned', () => body('/entregas/{id}/cancel', 'post'), { goods_received: true }, false],
  ['GET /orders status: a list', () => param('/orders', 'get', 'status'), 'pending, accepted', true],
  ['GET /orders status: an unknown state', () => param('/orders', 'get', 'status'), 'pending,shipped', false],
  ['GET /events types: a list', () => param('/events', 'get', 'types'), 'order.created,webhook.test', true],
  ['GET /events types: an unknown type', () => param('/events', 'get', 'types'), 'order.deleted', false],
  ['webhook events: an unknown type', () => schema('WebhookEvents'), ['order.deleted'], false],
  ['webhook events: "*" with another', () => schema('WebhookEvents'), ['*', 'order.created'], false],
  ['webhook events: "*" alone', () => schema('WebhookEvents'), ['*'], true],
  ['webhook url: public https', () => schema('WebhookUrl'), 'https://erp.example.com/hooks?x=1', true],
  ['webhook url: http to loopback', () => schema('WebhookUrl'), 'http://127.0.0.1:3000/hooks', true],
  ['webhook url: http to a public host', () => schema('WebhookUrl'), 'http://erp.example.com/hooks', false],
  ['webhook url: a private address', () => schema('WebhookUrl'), 'https://192.168.1.10/hooks', false],
  ['webhook url: a documentation address', () => schema('WebhookUrl'), 'https://203.0.113.7/hooks', false],
  ['webhook url: a benchmarking address', () => schema('WebhookUrl'), 'https://198.18.0.1/hooks', false],
  ['webhook url: a public address', () => schema('WebhookUrl'), 'https://8.8.8.8/hooks', true],
  ['webhook url: a .local name', () => schema('WebhookUrl'), 'https://erp.local/hooks', false],
  ['webhook url: with a user', () => schema('WebhookUrl'), 'https://me:pw@erp.example.com/', false],
  ['webhook url: with a fragment', () => schema('WebhookUrl'), 'https://erp.example.com/#x', false],
  ['webhook url: not a URL', () => schema('WebhookUrl'), 'erp.example.com', false],
  ['webhook url: an address with an octet over 255', () => schema('WebhookUrl'), 'https://999.1.1.1/hooks', false],
  ['webhook url: a name ending in a number', () => schema('WebhookUrl'), 'https://erp.123/hooks', false],
  ['webhook url: a name ending in a hex number', () => schema('WebhookUrl'), 'https://erp.0x1f/hooks', false],
  ['webhook url: a private address spelled in octal', () => schema('WebhookUrl'), 'https://0300.0250.0.1/hooks', false],
  ['webhook url: a name with digits and letters in its last label', () => schema('WebhookUrl'), 'https://erp.b0x1/hooks', true],
  ['image_url: not a URL', () => schema('ProductInput'), { ...product, image_url: 'cola.png' }, false],
  ['image_url: https', () => schema('ProductInput'), { ...product, image_url: 'https://cdn.example.com/cola.png' }, true],
  ['amount: the maximum', () => schema('Amount'), '1000000000000.00', true],
  ['amount: over the maximum', () => schema('Amount'), '1000000000000.01', false],
  ['amount: 13 digits over the maximum', () => schema('Amount'), '9999999999999', false],
  ['name: only spaces', () => schema('ProductInput'), { ...product, name: ' \t ' }, false],
  ['name: a no-break space only', () => schema('CategoryInput'), { name: '\u00a0' }, false],
  ['import-failure message: only spaces', () => body('/orders/{order_id}/import-failure', 'post'), { code: 'other', message: '  ' }, false],
  ['path external_id: a dot segment', () => param('/catalog/products/{external_id}', 'patch', 'external_id'), '..', false],
];

describe('the OpenAPI document is as strict as the emulator (issue 10, item 7)', () => {
  it.each(rows)('%s', (_name, validatorOf, value, valid) => {
    expect(validatorOf()(value)).toBe(valid);
  });

  it.each([
    'https://erp.example.com/hooks', 'https://8.8.8.8:443/x', 'https://999.1.1.1/', 'https://1.2.3/', 'https://1.2.3.4.5/',
    'https://a.123/', 'https://a.0x/', 'https://a.0x1f/', 'https://0x7f.0.0.1/', 'https://0300.0250.0.1/', 'https://010.1.1.1/',
    'https://erp.local/', 'https://erp.internal:8443/', 'https://-.example/', 'https://xn--caf-dma.example/', 'http://localhost:3000/',
    'https://172.31.255.255/', 'https://100.64.0.1/', 'https://224.0.0.1/', 'https://erp/', 'https://erp.example.com:65536/',
  ])('never lets the webhook URL pattern accept what saving refuses: %s', (url) => {
    if (schema('WebhookUrl')(url)) expect(webhookUrlProblem(url)).toBeNull();
  });

  it.each(['0', '0.5', '15000.50', '999999999999.99', '1000000000000', '1000000000000.0', '1000000000000.01', '10000000000000', '01', '1.234'])(
    'bounds the amount pattern exactly where parseAmount does: %s',
    (text) => {
      let accepted: boolean;
      try {
        parseAmount(text);
        accepted = true;
      } catch {
        accepted = false;
      }
      expect(BOUNDED_AMOUNT_PATTERN.test(text)).toBe(accepted);
    },
  );
});
