// Filled in by the webhooks work: zod schemas of this part of the spec.
export {};
