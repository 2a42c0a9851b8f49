import { InvalidArgumentError, type Command } from 'commander';

// `merchant-kit catalog …`: every verb imports its action lazily, so `--help` loads only commander.

const EXAMPLE_BASE = '\nExample:\n  $ merchant-kit catalog';

function trueFalse(name: string) {
  return (value: string): boolean => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new InvalidArgumentError(`${name} must be true or false.`);
  };
}

/** An integer position, 0 to 100000 (spec: Limits). */
function position(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 100_000) throw new InvalidArgumentError('--position must be an integer from 0 to 100000.');
  return n;
}

export function register(program: Command): void {
  const catalog = program
    .command('catalog')
    .description('The catalog: pull it to a file, sync a file (JSON or CSV), change one category, product or option')
    .addHelpText('after', `${EXAMPLE_BASE} pull --out menu.json\n  $ merchant-kit catalog sync menu.json --dry-run`);

  catalog
    .command('pull')
    .description('Write every category and product of the store to a file that `catalog sync` reads (.json, or .csv)')
    .requiredOption('--out <file>', 'the file to write (.json or .csv)')
    .addHelpText('after', `${EXAMPLE_BASE} pull --out menu.json`)
    .action(async (options: { out: string }, command: Command) => (await import('./pull.js')).pullAction(options, command));

  catalog
    .command('sync')
    .description('Publish a catalog file (JSON as `catalog pull` writes it, or CSV): sends only what changed, in batches of up to 500')
    .argument('<file>', 'a .json or .csv catalog file')
    .option('--full-snapshot', "send the whole catalog as one full snapshot: items missing from the file get the store's missing_items_policy")
    .option('--dry-run', 'read the store and print what would be created, updated, deactivated or left unchanged; send nothing')
    .addHelpText(
      'after',
      `${EXAMPLE_BASE} sync fixtures/catalog/asuncion-restaurant.json --dry-run\n  $ merchant-kit catalog sync menu.csv --full-snapshot\n\n` +
        'Exit codes: 0 all sent, 1 an operation or the API failed, 2 the file is invalid (nothing sent).\n' +
        'An interrupted --full-snapshot continues where it stopped when the same command is run again.',
    )
    .action(async (file: string, options: { fullSnapshot?: boolean; dryRun?: boolean }, command: Command) =>
      (await import('./sync.js')).syncAction(file, options, command));

  const category = catalog
    .command('category')
    .description('One category: create or update it, or deactivate it')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit catalog category set CAT-EMP --name Empanadas --position 1\n  $ merchant-kit catalog category delete CAT-EMP\n');
  category
    .command('set')
    .description('Create or update a category (PUT /catalog/categories/{external_id})')
    .argument('<external_id>', 'the category code in your system')
    .requiredOption('--name <name>', 'the name shown on the menu')
    .option('--position <n>', 'menu order, lower first (0 to 100000)', position)
    .option('--inactive', 'create or leave it inactive (hidden from the menu)')
    .addHelpText('after', `${EXAMPLE_BASE} category set BEB --name Bebidas --position 60`)
    .action(async (code: string, options: { name: string; position?: number; inactive?: boolean }, command: Command) =>
      (await import('./category-set.js')).categorySetAction(code, options, command));
  category
    .command('delete')
    .description('Deactivate a category (DELETE /catalog/categories/{external_id}; 409 while it has active products)')
    .argument('<external_id>', 'the category code')
    .addHelpText('after', `${EXAMPLE_BASE} category delete BEB`)
    .action(async (code: string, _o: unknown, command: Command) => (await import('./category-delete.js')).categoryDeleteAction(code, command));

  const product = catalog
    .command('product')
    .description('One product: create or replace it, change price or availability, deactivate it')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit catalog product patch EMP-CARNE --price 6000\n  $ merchant-kit catalog product delete EMP-CARNE\n');
  product
    .command('set')
    .description('Create or replace a product (PUT /catalog/products/{external_id}) from a JSON file or from flags')
    .argument('<external_id>', 'the product code in your system')
    .option('--file <product.json>', 'the product body as JSON (the fields of a product in the catalog file)')
    .option('--name <name>', 'the name shown on the menu')
    .option('--category <external_id>', 'the code of its category (already sent)')
    .option('--price <amount>', 'unit price, e.g. 35000 or 35000.50')
    .option('--description <text>', 'description')
    .option('--sku <sku>', 'SKU (informative)')
    .option('--position <n>', 'order within the category (0 to 100000)', position)
    .option('--image-url <url>', 'http(s) URL of the photo')
    .option('--inactive', 'not on the menu')
    .option('--unavailable', 'shown as sold out')
    .addHelpText('after', `${EXAMPLE_BASE} product set LOM-ARABE --name "Lomito árabe" --category LOM --price 35000\n  $ merchant-kit catalog product set LOM-ARABE --file lomito.json`)
    .action(async (code: string, options: Record<string, unknown>, command: Command) => (await import('./product-set.js')).productSetAction(code, options, command));
  product
    .command('patch')
    .description('Change price, availability or state (PATCH /catalog/products/{external_id})')
    .argument('<external_id>', 'the product code')
    .option('--price <amount>', 'new unit price')
    .option('--available <true|false>', 'false shows it as sold out', trueFalse('--available'))
    .option('--active <true|false>', 'false removes it from the menu', trueFalse('--active'))
    .addHelpText('after', `${EXAMPLE_BASE} product patch LOM-ARABE --price 36000 --available false`)
    .action(async (code: string, options: { price?: string; available?: boolean; active?: boolean }, command: Command) =>
      (await import('./product-patch.js')).productPatchAction(code, options, command));
  product
    .command('delete')
    .description('Deactivate a product (DELETE /catalog/products/{external_id}; past orders keep their copies)')
    .argument('<external_id>', 'the product code')
    .addHelpText('after', `${EXAMPLE_BASE} product delete LOM-ARABE`)
    .action(async (code: string, _o: unknown, command: Command) => (await import('./product-delete.js')).productDeleteAction(code, command));

  catalog
    .command('option')
    .description('One option of a product')
    .addHelpText('after', '\nExample:\n  $ merchant-kit catalog option patch OPT-QUESO --price 3000 --available false\n')
    .command('patch')
    .description('Change the price or availability of an option (PATCH /catalog/options/{external_id})')
    .argument('<external_id>', 'the option code')
    .option('--price <amount>', 'new extra price')
    .option('--available <true|false>', 'false: the option cannot be chosen', trueFalse('--available'))
    .addHelpText('after', `${EXAMPLE_BASE} option patch LOM-ARABE.extras.huevo --available false`)
    .action(async (code: string, options: { price?: string; available?: boolean }, command: Command) =>
      (await import('./option-patch.js')).optionPatchAction(code, options, command));
}
