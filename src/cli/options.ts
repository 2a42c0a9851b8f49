import { InvalidArgumentError } from 'commander';
import { EVENT_TYPES, WEBHOOK_EVENT_SELECTORS } from '../contract/enums.js';

// Argument parsers for commander options: light (no zod), so command registration stays fast.
// A bad value is a usage error (exit 2) with commander's own message.

/** The values shell completion offers for an option or argument; `list` for comma-separated lists. */
export interface CompletionValues {
  values: readonly string[];
  list: boolean;
}

/** A parser that also tells shell completion its values (completion/tree.ts reads `completion`). */
export type ValueParser<T> = ((value: string) => T) & { completion: CompletionValues };

function offering<T>(parse: (value: string) => T, values: readonly string[], list: boolean): ValueParser<T> {
  return Object.assign(parse, { completion: { values, list } });
}

/** The value as typed, checked later by the action, with the values completion offers. */
export function offers(values: readonly string[], options: { list?: boolean } = {}): ValueParser<string> {
  return offering((value) => value, values, Boolean(options.list));
}

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
export function choiceOption<T extends string>(values: readonly T[]): ValueParser<T> {
  return offering((value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`accepted values: ${values.join(', ')}.`);
    return value as T;
  }, values, false);
}

/** A comma-separated list (`a,b`), each item among `values` when given; empty items dropped. */
export function listOption<T extends string>(values?: readonly T[]): ValueParser<T[]> {
  return offering((value: string): T[] => {
    const items = value.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list.');
    const bad = values ? items.filter((i) => !values.includes(i as T)) : [];
    if (bad.length > 0) throw new InvalidArgumentError(`unknown value ${bad.join(', ')}; accepted: ${values!.join(', ')}.`);
    return items as T[];
  }, values ?? [], true);
}

/**
 * `--events a,b` of a webhook: the contract's event types, or `*` alone (every type the scopes
 * allow), checked before any call.
 */
export function eventsOption(): ValueParser<string[]> {
  const list = listOption(WEBHOOK_EVENT_SELECTORS);
  // Completion offers the types, not "*": inserted unquoted it would expand to file names.
  return offering((value: string): string[] => {
    const events = [...new Set(list(value))];
    if (events.includes('*') && events.length > 1) throw new InvalidArgumentError('"*" (every event type) goes alone.');
    return events;
  }, EVENT_TYPES, true);
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
  EVENT_TYPES, WEBHOOK_EVENT_SELECTORS, FINAL_ORDER_STATUSES,
} from '../contract/enums.js';
