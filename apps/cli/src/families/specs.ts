// `up` and `flow run`: workspaces and flows of agents from TOML specs.
import { flowRun } from '../flow';
import { up } from '../up';
import { flag, scopeOf, str, type Run } from './common';

export const run: Record<string, Run> = {
  up: (p) => up(str(p, 'file'), !!flag(p, 'dry-run')),
  'flow run': (p) => flowRun(str(p, 'file'), { dryRun: !!flag(p, 'dry-run'), json: !!flag(p, 'json'), scope: scopeOf(p) }),
};
