export { findWorkspaceRoot, main, parseArguments } from "./cli.ts";
export { linePrefixer } from "./line-prefixer.ts";
export { type PlanOptions, planTasks, type Task, taskId } from "./plan.ts";
export { type RunOptions, runTasks, type TaskResult, type TaskStatus } from "./run-tasks.ts";
export { formatDuration, summarize } from "./summary.ts";
export { readWorkspace, type Workspace, type WorkspacePackage, workspaceGlobs } from "./workspace.ts";
