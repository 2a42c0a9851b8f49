import type { Address, Customer } from './repository.js';
import { formatRuc } from './ruc.js';
import type { Chance } from './chance.js';
import { BUSINESS_NAMES, FIRST_NAMES, LAST_NAMES, MOBILE_PREFIXES, NEIGHBORHOODS, REFERENCES } from './sample-data.js';

export function fakeCustomer(chance: Chance, withBilling: boolean): Customer {
  const name = `${chance.pick(FIRST_NAMES)} ${chance.pick(LAST_NAMES)}`;
  const customer: Customer = { name, phone: `+595${chance.pick(MOBILE_PREFIXES)}${chance.digits(6)}` };
  if (withBilling) customer.billing = fakeBilling(chance, name);
  return customer;
}

/**
 * Invoice data: a company RUC (80xxxxxx-D) or a person's RUC (their CI number plus check digit),
 * both with a valid check digit, or a plain CI.
 */
function fakeBilling(chance: Chance, personName: string): NonNullable<Customer['billing']> {
  const kind = chance.int(0, 2);
  if (kind === 0) return { document_type: 'ruc', document: formatRuc(`80${chance.digits(6)}`), business_name: chance.pick(BUSINESS_NAMES) };
  if (kind === 1) return { document_type: 'ruc', document: formatRuc(chance.digits(7)), business_name: personName };
  return { document_type: 'ci', document: chance.digits(chance.pick([6, 7])), business_name: personName };
}

/** An address in Asunción with its barrio, a reference and coordinates near the barrio's centre. */
export function fakeAddress(chance: Chance): Address {
  const barrio = chance.pick(NEIGHBORHOODS);
  const jitter = () => (chance.int(-300, 300) / 100_000);
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return {
    street: chance.pick(barrio.streets),
    number: String(chance.int(100, 4999)),
    neighborhood: barrio.name,
    city: 'Asunción',
    reference: chance.pick(REFERENCES),
    latitude: round(barrio.lat + jitter()),
    longitude: round(barrio.lng + jitter()),
  };
}
