export * from './match';
export { describeForeground, ForegroundReader } from './reader';
export { configDir, resolvePath } from './paths';
export { readAgentSession, type AgentSession } from './sessions';
export { priceTable, runtimeCatalog } from './catalog-source';
export { sessionCpuMs, sessionProcesses, stopTree } from './tree';
