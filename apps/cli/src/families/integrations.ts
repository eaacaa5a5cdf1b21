// `hooks` and `mcp`: Paneflow's entries in the agents' own config files.
import { hooksSetup, hooksStatus, hooksUninstall, mcpInstall, mcpStatus, mcpUninstall } from '../integrations';
import type { Run } from './common';

export const run: Record<string, Run> = {
  'hooks setup': async () => hooksSetup(),
  'hooks status': async () => hooksStatus(),
  'hooks uninstall': async () => hooksUninstall(),
  'mcp install': async () => mcpInstall(),
  'mcp status': async () => mcpStatus(),
  'mcp uninstall': async () => mcpUninstall(),
};
