// `hooks`, `mcp` and `integrations`: Paneflow's entries in the agents' own config files.
import { hooksSetup, hooksStatus, hooksUninstall, integrationsInstall, integrationsList, integrationsRemove, mcpInstall, mcpStatus, mcpUninstall } from '../integrations';
import { str, type Run } from './common';

export const run: Record<string, Run> = {
  'hooks setup': async () => hooksSetup(),
  'hooks status': async () => hooksStatus(),
  'hooks uninstall': async () => hooksUninstall(),
  'mcp install': async () => mcpInstall(),
  'mcp status': async () => mcpStatus(),
  'mcp uninstall': async () => mcpUninstall(),
  'integrations list': async () => integrationsList(),
  'integrations install': async (p) => integrationsInstall(str(p, 'runtime')),
  'integrations remove': async (p) => integrationsRemove(str(p, 'runtime')),
};
