// Filled in by the events work: zod schemas of this part of the spec.
export {};
