import { CHECK_IDS } from '../../../../checks/types.js';
import { REPORT_FORMATS } from '../../../../checks/writers/index.js';
import type { ExtraValues } from './tree.js';

/**
 * Values of options that keep their text as typed and leave the check to their action (their lists
 * live beside the checks, too heavy for `--help`): loaded only to print a completion script.
 * Options parsed by options.ts carry their values themselves.
 */
export const EXTRA_VALUES: ExtraValues = {
  homologate: {
    '--format': { values: REPORT_FORMATS, list: true },
    '--only': { values: CHECK_IDS, list: true },
  },
};
