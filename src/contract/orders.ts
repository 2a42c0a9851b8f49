// Filled in by the orders work: zod schemas of this part of the spec.
export {};
