export { answerInput, answerSettleMs, answersFor, CatalogError, normalizeName, findPreset, parseCatalog, platformOf, resolveAgent, RuntimeDescriptor, suggestedPresets } from './catalog';
export type { Catalog, Platform, Preset, Runtime } from './catalog';
export { matchProcess } from './matcher';
export type { Match, MatchStrength, ProcessFacts } from './matcher';
export { costOf, parsePrices, TOKEN_READERS, turnTokens } from './tokens';
export type { PriceEntry, TokenReader, TranscriptTokens } from './tokens';
export { findLimitLine, LIMIT_GROUPS, markerGroups, resetTime } from './limits';
export type { LimitLine } from './limits';
