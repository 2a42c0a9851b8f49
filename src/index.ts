// Public entry `merchant-kit`: the API contract (schemas, types, ids, amounts, dates, errors).
export * from './contract/index.js';
