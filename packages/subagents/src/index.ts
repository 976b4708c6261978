// Public API of @spine/subagents. Every export here is a semver promise.
/**
 * Subagents: child sessions a parent agent delegates to through a `task` tool, replayable end to end.
 *
 * @packageDocumentation
 */

export type { ChangeToolNames, ChildChanges } from './child-record.js';
export { childChanges, totalTokens, usageWithChildren } from './child-record.js';
export {
  ChildSessionMissingError,
  InvalidProfileError,
  InvalidTaskToolOptionsError,
} from './errors.js';
export type { AgentProfile } from './profile.js';
export {
  BUILTIN_PROFILES,
  EXPLORE_PROFILE,
  GENERAL_PROFILE,
  isReadOnlyProfile,
  mergeProfiles,
  narrowerSandbox,
  READ_ONLY_TOOLS,
} from './profile.js';
export type { ProfileSymlinks } from './profile-dir.js';
export { MAX_PROFILE_BYTES } from './profile-dir.js';
export type { LoadProfileDirOptions } from './profile-file.js';
export { loadProfileDir, parseProfileFile } from './profile-file.js';
export type { RecoveredChild } from './recover.js';
export { recoverChildren } from './recover.js';
export type { ChildRerunEntry, ChildRerunReport, RecordedChildren } from './rerun.js';
export { recordedChildren } from './rerun.js';
export type { TaskArguments } from './task-tool.js';
export { createTaskTool, TASK_TOOL_NAME } from './task-tool.js';
export type {
  ChildLink,
  ChildTreeNode,
  SessionTreeNode,
  TreeReplayEntry,
  TreeReplayReport,
} from './tree.js';
export { childLinks, readChildTree, readSessionTree, replayTree } from './tree.js';
export type {
  ChildApprovalRequest,
  ChildInfo,
  ChildLimits,
  ChildModel,
  ChildProgressEvent,
  ChildToolsRequest,
  TaskToolOptions,
} from './types.js';
