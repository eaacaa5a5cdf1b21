export { SpecError, formatProblem } from './problems';
export type { Problem } from './problems';
export { parseWorkspace, assignPorts, MAX_PANES, PORT_STRIDE } from './workspace';
export type { Layout, PanePlan, SpecHost, WorkspacePlan, WorktreePlan } from './workspace';
export { parseFlow, fillCaptures, MAX_CAPTURE_LINES } from './flow';
export type { FlowPlan, StepPlan } from './flow';
export { branchSlug, worktreePath } from './worktree';
