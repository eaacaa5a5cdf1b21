export * from './match';
export { describeForeground, ForegroundReader } from './reader';
export { readAgentSession, type AgentSession } from './sessions';
export { runtimeCatalog } from './catalog-source';
export { sessionProcesses, stopTree } from './tree';
