export { CatalogError, normalizeName, parseCatalog, resolveAgent, RuntimeDescriptor } from './catalog';
export type { Catalog, Runtime } from './catalog';
export { matchProcess } from './matcher';
export type { Match, MatchStrength, ProcessFacts } from './matcher';
