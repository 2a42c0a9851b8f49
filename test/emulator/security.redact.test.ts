import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/logging/redact.js';

const SECRET = 'Zx9Qw8Er7Ty6Ui5Op4As';

describe('redactSecrets', () => {
  it.each([
    [`/me?k=svs_test_${SECRET}`],
    [`/me?k=svs%5Ftest%5F${SECRET}`],
    [`/me?k=svs%5ftest%5f${SECRET}&b=1`],
    [`/me?k=%73vs_live_${SECRET}`],
    [`/me?k=svk_test_abc.svs_test_${SECRET}`],
    [`/me?k=svk%5Ftest%5Fabc%2Esvs%5Ftest%5F${SECRET}`],
    [`/webhook?s=whsec_${SECRET}-_x`],
    [`/webhook?s=whsec%5F${SECRET}%2D%5Fx`],
    [`/orders/whsec%5F${SECRET}`],
    [`Authorization: Bearer svk_test_a.${SECRET}`],
    [`q=Bearer%20${SECRET}`],
    [`/me?k=svs%255Ftest%255F${SECRET}`], // encoded twice (a client that encodes an encoded value)
    [`/me?k=whsec%25255F${SECRET}`], // three times
  ])('masks the secret in %s', (text) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(SECRET);
    expect(out).toContain('[redacted]');
  });

  it.each([['/sandbox/v1/orders?status=pending%2Caccepted'], ['/catalog/products?cursor=abc%3D%3D'], ['plain text, no secret']])(
    'leaves %s as it is',
    (text) => expect(redactSecrets(text)).toBe(text),
  );
});
