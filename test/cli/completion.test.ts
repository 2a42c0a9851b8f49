import { execFileSync } from 'node:child_process';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/commands/index.js';
import { completionTree } from '../../src/cli/commands/completion/tree.js';
import { EXTRA_VALUES } from '../../src/cli/commands/completion/values.js';
import {
  ACK_STATUSES, DELIVERY_STATUSES, ENTREGA_ACTIONS, EVENT_TYPES, IMPORT_FAILURE_CODES, ORDER_STATUSES, SIMULATOR_SCENARIOS,
} from '../../src/contract/enums.js';
import { CHECK_IDS } from '../../checks/types.js';
import { REPORT_FORMATS } from '../../checks/writers/index.js';
import { buildPrivateCli, cli } from '../helpers/cli-core.js';

// issue 14: completion offers values (scenarios, statuses, codes, ack statuses, report formats,
// event types…) taken from the contract's value lists, in bash, zsh and fish.

let bash: string;
let zsh: string;
let fish: string;
let removeBuild: () => void = () => undefined;

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  [bash, zsh, fish] = await Promise.all(['bash', 'zsh', 'fish'].map(async (shell) => (await cli(['completion', shell])).stdout));
});
afterAll(() => removeBuild());

/** What the bash function offers for the words typed so far (the last one is the word being completed). */
function complete(...words: string[]): string[] {
  const array = words.map((w) => `'${w}'`).join(' ');
  const script = `${bash}\nCOMP_WORDS=(merchant-kit ${array}); COMP_CWORD=${words.length}; _merchant_kit; printf '%s\\n' "\${COMPREPLY[@]}"\n`;
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function program(): Command {
  const root = new Command('merchant-kit');
  for (const register of COMMAND_GROUPS) register(root);
  return root;
}

describe('the values of the completion tree', () => {
  const nodes = completionTree(program(), EXTRA_VALUES);
  const option = (path: string, flag: string) => nodes.find((n) => n.path === path)?.options.find((o) => o.flag === flag)?.values;
  const arg = (path: string, i: number) => nodes.find((n) => n.path === path)?.args[i];

  it.each([
    ['simulate order', '--scenario', SIMULATOR_SCENARIOS, false],
    ['orders list', '--status', ORDER_STATUSES, true],
    ['orders list', '--ack-status', ACK_STATUSES, false],
    ['orders fail', '--code', IMPORT_FAILURE_CODES, false],
    ['webhook deliveries', '--status', DELIVERY_STATUSES, false],
    ['webhook set', '--events', EVENT_TYPES, true],
    ['listen', '--events', EVENT_TYPES, true],
    ['feed tail', '--types', EVENT_TYPES, true],
    ['homologate', '--format', REPORT_FORMATS, true],
    ['homologate', '--only', CHECK_IDS, true],
  ])('%s %s offers the contract\'s list', (path, flag, values, list) => {
    expect(option(path, flag)).toEqual({ values, list });
  });

  it('positional arguments offer theirs: orders status <order_id> <status>, entregas action <id> <action>', () => {
    expect(arg('orders status', 0)).toBeNull();
    expect(arg('orders status', 1)).toEqual({ values: ORDER_STATUSES, list: false });
    expect(arg('entregas action', 1)).toEqual({ values: ENTREGA_ACTIONS, list: false });
  });

  it('every value is a plain word (no glob or quote character a shell would expand)', () => {
    const all = nodes.flatMap((n) => [...n.options.map((o) => o.values), ...n.args]).flatMap((v) => v?.values ?? []);
    expect(all.length).toBeGreaterThan(40);
    for (const value of all) expect(value).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('the extra values name options that exist', () => {
    for (const [path, flags] of Object.entries(EXTRA_VALUES)) {
      for (const flag of Object.keys(flags)) expect(nodes.find((n) => n.path === path)?.options.map((o) => o.flag), `${path} ${flag}`).toContain(flag);
    }
  });
});

describe('bash completion', () => {
  it.each([
    [['simulate', 'order', '--scenario', ''], [...SIMULATOR_SCENARIOS]],
    [['simulate', 'order', '--scenario', 'pi'], ['pickup_invoice']],
    [['orders', 'list', '--status', ''], [...ORDER_STATUSES]],
    [['orders', 'list', '--ack-status', 'ack'], ['acknowledged']],
    [['orders', 'fail', 'ord_1', '--code', 'reg'], ['register_closed']],
    [['homologate', '--format', 'ju'], ['junit']],
    [['feed', 'tail', '--types', 'order.s'], ['order.status_changed']],
    [['emulator', 'start', '--clock', ''], ['system', 'manual']],
    [['completion', ''], ['bash', 'zsh', 'fish']],
  ])('%j offers %j', (words, expected) => {
    expect(complete(...words)).toEqual(expected);
  });

  it('a list completes after its last comma, without the values already listed', () => {
    expect(complete('orders', 'list', '--status', 'pending,acc')).toEqual(['pending,accepted']);
    expect(complete('homologate', '--format', 'json,')).toEqual(['json,terminal', 'json,junit', 'json,html', 'json,md']);
  });

  it('completes --flag=value, also as bash splits it at "="', () => {
    expect(complete('orders', 'list', '--status=pen')).toEqual(['--status=pending']);
    expect(complete('orders', 'list', '--status', '=', 'pen')).toEqual(['pending']);
  });

  it('a positional argument: the status after the order id, with options and their values skipped', () => {
    expect(complete('orders', 'status', 'ord_1', 'acc')).toEqual(['accepted']);
    expect(complete('--profile', 'sandbox', 'orders', 'status', '--reason', 'Sin stock', 'ord_1', 'can')).toEqual(['cancelled']);
    expect(complete('orders', 'status', '')).toEqual([]);
    expect(complete('entregas', 'action', 'ent_1', 'r')).toEqual(['raise_fee', 'returned']);
  });

  it('still completes subcommands and options; an option with a free value is left to file completion', () => {
    expect(complete('orders', 'li')).toEqual(['list']);
    expect(complete('orders', 'list', '--ack')).toEqual(['--ack-status']);
    expect(complete('webhook', 'set', '--url', '')).toEqual([]);
  });
});

describe('zsh and fish completion', () => {
  it('zsh runs the same functions through bashcompinit', () => {
    expect(zsh).toMatch(/^#compdef merchant-kit\n/);
    expect(zsh).toContain('\nautoload -U +X bashcompinit && bashcompinit\n');
    expect(zsh).toContain(bash.split('\n').slice(1).join('\n'));
  });

  it('fish lists each option\'s values (-x -a), lists after their comma, and positional values by position', () => {
    expect(fish).toContain(`-l 'scenario' -x -a '${SIMULATOR_SCENARIOS.join(' ')}'`);
    expect(fish).toContain(`-l 'status' -x -a '(__merchant_kit_list ${ORDER_STATUSES.join(' ')})'`);
    expect(fish).toContain(`-l 'code' -x -a '${IMPORT_FAILURE_CODES.join(' ')}'`);
    expect(fish).toContain(`-l 'types' -x -a '(__merchant_kit_list ${EVENT_TYPES.join(' ')})'`);
    expect(fish).toContain(`complete -c merchant-kit -n '__merchant_kit_arg \\'orders status\\' 1' -a '${ORDER_STATUSES.join(' ')}'`);
    expect(fish).toMatch(/-l 'url' -rF -d/);
  });
});
