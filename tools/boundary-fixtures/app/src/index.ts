// An app that libraries must never import; tools/test/boundaries.test.ts tries to.
export const appOnly = true;
