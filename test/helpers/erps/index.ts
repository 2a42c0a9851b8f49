// The zoo of ERPs for the observer's tests and for bench/homologation.mjs (which bundles this entry).
export { startErp, type ErpSpec, type ZooErp, type ZooTarget } from './erp.js';
export { startPerson, doTask, type Person } from './person.js';
export { ALL_PASS, CORRECT, FAULTY, type Variant, type Verdict } from './zoo.js';
