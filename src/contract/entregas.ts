// Filled in by the entregas work: zod schemas of this part of the spec.
export {};
