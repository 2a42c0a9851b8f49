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

// The contract's own value lists, from its zod-free module: `--help` lists and checks the same
// values as the API's schemas without loading zod (test/cli/program.test.ts watches the imports).
export {
  ORDER_STATUSES, ACK_STATUSES, IMPORT_FAILURE_CODES, DELIVERY_STATUSES, SIMULATOR_SCENARIOS, ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS,
} from '../contract/enums.js';
