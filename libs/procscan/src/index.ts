export * from './match';
export { ForegroundReader } from './reader';
export { runtimeCatalog } from './catalog-source';
export { sessionProcesses, stopTree } from './tree';
