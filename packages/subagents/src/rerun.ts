import {
  compareToolResults,
  createRecordedModel,
  type RecordedModel,
  type ReplayReport,
  recordedApprovals,
  replay,
  type ToolResultDifference,
} from '@spine/agent-loop';
import type { ApprovalAnswer, ApprovalDecision, SessionStore } from '@spine/protocol';
import { Session } from '@spine/session-log';
import { readSessionTree, type SessionTreeNode } from './tree.js';
import type { ChildApprovalRequest, ChildInfo, ChildModel } from './types.js';

/** How one rerun child compares with its recording. */
export interface ChildRerunEntry {
  /** The parent's `task` call both children answered. */
  toolCallId: string;
  /** Nesting depth. */
  depth: number;
  /** The recorded child session. */
  recordedSessionId: string;
  /** The rerun's child session (absent when the rerun never started it). */
  rerunSessionId?: string;
  /** Recorded model outputs and how many the rerun consumed. */
  modelOutputs: { recorded: number; replayed: number };
  /** Tool results of the recording and the rerun, and how many are identical. */
  toolResults: { recorded: number; rerun: number; same: number };
  /** The tool results that differ. */
  differences: ToolResultDifference[];
  /** The rerun child's requests, rebuilt from its log and checked by hash. */
  verified?: ReplayReport;
  /** True when everything matches. */
  ok: boolean;
}

/** What {@link RecordedChildren.compare} found. */
export interface ChildRerunReport {
  /** True when every recorded child was rerun and matches. */
  ok: boolean;
  /** One entry per recorded child, depth-first in start order. */
  children: ChildRerunEntry[];
}

/** The recorded children of a session, ready to answer a rerun's children offline. */
export interface RecordedChildren {
  /** For `createTaskTool({ childModel })`: the recorded outputs of the child answering the same call. */
  childModel(child: ChildInfo): ChildModel | undefined;
  /** For `createTaskTool({ approve })`: a child's recorded approval answers (`once` when none). */
  approve(request: ChildApprovalRequest): Promise<ApprovalAnswer | ApprovalDecision>;
  /**
   * Compares the rerun's children (under `rerunSessionId` in `store`) with the recorded ones. It
   * reads the rerun's parent from the store: flush or close that session first.
   */
  compare(
    store: SessionStore,
    rerunSessionId: string,
    workspaces?: { recorded?: string; rerun?: string },
  ): Promise<ChildRerunReport>;
}

const key = (depth: number, toolCallId: string): string => `${depth}:${toolCallId}`;

function flatten(node: SessionTreeNode, out: SessionTreeNode[] = []): SessionTreeNode[] {
  for (const child of node.children) {
    out.push(child);
    flatten(child, out);
  }
  return out;
}

/**
 * Reads the children of a recorded session so a rerun can answer its children from their own
 * recordings: the rerun's `task` calls carry the recorded call ids (the recorded parent model
 * proposes them), and each child is matched by call id and depth. After the rerun,
 * `compare` checks each child's tool results against the recorded ones and verifies its requests.
 *
 * @throws a {@link ChildSessionMissingError} when a linked child is not in `store`.
 * @example
 * ```ts
 * const recorded = await recordedChildren(store, recordedId);
 * const task = createTaskTool({ ...options, childModel: recorded.childModel, approve: recorded.approve });
 * // … rerun(recordedEvents, { agent, model }) …
 * await agent.session.flush(); // compare reads the rerun's parent from the store
 * const report = await recorded.compare(store, agent.session.id);
 * ```
 */
export async function recordedChildren(
  store: SessionStore,
  sessionId: string,
): Promise<RecordedChildren> {
  const tree = await readSessionTree(store, sessionId);
  const nodes = flatten(tree);
  const byCall = new Map<string, SessionTreeNode>();
  for (const node of nodes)
    if (node.link) byCall.set(key(node.depth, node.link.start.toolCallId), node);
  const models = new Map<string, RecordedModel>();
  const modelFor = (node: SessionTreeNode): RecordedModel => {
    let model = models.get(node.sessionId);
    if (!model) {
      model = createRecordedModel({ events: node.events });
      models.set(node.sessionId, model);
    }
    return model;
  };
  return {
    childModel(child) {
      const node = byCall.get(key(child.depth, child.toolCallId));
      if (!node) return undefined;
      const header = node.events[0]?.body as { model?: string } | undefined;
      return { model: modelFor(node), modelId: header?.model ?? 'recorded' };
    },
    async approve(request) {
      const node = byCall.get(key(request.child.depth, request.child.toolCallId));
      return (node && recordedApprovals(node.events).get(request.toolCallId)) ?? 'once';
    },
    async compare(rerunStore, rerunSessionId, workspaces = {}) {
      const rerunTree = await readSessionTree(rerunStore, rerunSessionId);
      const rerunByCall = new Map<string, SessionTreeNode>();
      for (const node of flatten(rerunTree))
        if (node.link) rerunByCall.set(key(node.depth, node.link.start.toolCallId), node);
      const children: ChildRerunEntry[] = [];
      for (const node of nodes) {
        const toolCallId = node.link?.start.toolCallId ?? '';
        const model = models.get(node.sessionId);
        const rerunNode = rerunByCall.get(key(node.depth, toolCallId));
        const recordedHeader = node.events[0]?.body as { cwd?: string } | undefined;
        const rerunHeader = rerunNode?.events[0]?.body as { cwd?: string } | undefined;
        const comparison = compareToolResults(node.events, rerunNode?.events ?? [], {
          ...(recordedHeader?.cwd === undefined ? {} : { recorded: recordedHeader.cwd }),
          ...(rerunHeader?.cwd === undefined ? {} : { rerun: rerunHeader.cwd }),
          ...workspaces,
        });
        let verified: ReplayReport | undefined;
        if (rerunNode) {
          const session = await Session.open({
            store: rerunStore,
            id: rerunNode.sessionId,
            readOnly: true,
          });
          verified = replay(session);
          await session.close();
        }
        const modelOutputs = { recorded: model?.total ?? 0, replayed: model?.served ?? 0 };
        children.push({
          toolCallId,
          depth: node.depth,
          recordedSessionId: node.sessionId,
          ...(rerunNode ? { rerunSessionId: rerunNode.sessionId } : {}),
          modelOutputs,
          toolResults: {
            recorded: comparison.recorded,
            rerun: comparison.rerun,
            same: comparison.same,
          },
          differences: comparison.differences,
          ...(verified ? { verified } : {}),
          ok:
            rerunNode !== undefined &&
            comparison.differences.length === 0 &&
            verified?.ok === true &&
            modelOutputs.recorded === modelOutputs.replayed,
        });
      }
      return { ok: children.every((entry) => entry.ok), children };
    },
  };
}
