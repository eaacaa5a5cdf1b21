export * from './match';
export { describeForeground, ForegroundReader } from './reader';
export { runtimeCatalog } from './catalog-source';
export { sessionProcesses, stopTree } from './tree';
