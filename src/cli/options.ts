import { InvalidArgumentError } from 'commander';

// Argument parsers for commander options: light (no zod), so command registration stays fast.
// A bad value is a usage error (exit 2) with commander's own message.

/** An integer within bounds. */
export function intOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** One of the listed values. */
export function choiceOption<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`accepted values: ${values.join(', ')}.`);
    return value as T;
  };
}

/** A comma-separated list (`a,b`), each item among `values` when given; empty items dropped. */
export function listOption<T extends string>(values?: readonly T[]) {
  return (value: string): T[] => {
    const items = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list.');
    const bad = values ? items.filter((i) => !values.includes(i as T)) : [];
    if (bad.length > 0) throw new InvalidArgumentError(`unknown value ${bad.join(', ')}; accepted: ${values!.join(', ')}.`);
    return items as T[];
  };
}

/** A date-time with an explicit offset (`2026-05-01T12:00:00-03:00` or `…Z`). */
export function dateTimeOption(name: string) {
  return (value: string): string => {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new InvalidArgumentError(`${name} must be an ISO 8601 date-time with an offset, e.g. 2026-05-01T12:00:00-03:00.`);
    }
    return value;
  };
}

// Duplicated from src/contract on purpose: importing the contract would load zod on every `--help`.
// test/cli/options.test.ts checks these lists against the contract.
export const ORDER_STATUSES = ['pending', 'accepted', 'preparing', 'ready', 'out_for_delivery', 'completed', 'rejected', 'cancelled'] as const;
export const ACK_STATUSES = ['pending', 'acknowledged', 'failed'] as const;
export const IMPORT_FAILURE_CODES = ['unmapped_product', 'invalid_customer', 'register_closed', 'validation_error', 'other'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export const SIMULATOR_SCENARIOS = ['delivery', 'pickup_invoice', 'unmapped_product'] as const;
export const ENTREGA_ACTIONS = ['pickup', 'raise_fee', 'cancel', 'returned'] as const;
export const ENTREGA_PAYMENT_METHODS = ['cash', 'bank_transfer', 'card_on_delivery', 'qr', 'prepaid'] as const;
