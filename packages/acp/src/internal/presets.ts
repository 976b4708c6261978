// Approval presets offered to the client as a session config option (category `mode`) and as
// legacy modes. A preset sets Spine's approval policy (and, for read-only, the sandbox); the
// policy stays Spine's: the runtime applies it, and its decisions are recorded per call.
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { AgentSession } from '@spine/harness';

/** The presets, in the order a client lists them. */
export const PRESETS = [
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Commands cannot change files (read-only sandbox); edits are asked for',
  },
  { id: 'ask', name: 'Ask', description: 'Ask before edits and commands' },
  { id: 'auto-edit', name: 'Auto-edit', description: 'Edit files freely, ask before commands' },
  { id: 'never-ask', name: 'Never ask', description: 'Run everything within the sandbox' },
] as const;

/** One preset's id. */
export type PresetId = (typeof PRESETS)[number]['id'];

/** The config option id of the approval preset. */
export const PRESET_OPTION = 'approval';

/** True for a known preset id. */
export function isPreset(value: unknown): value is PresetId {
  return PRESETS.some((preset) => preset.id === value);
}

/** The preset a session is in now. */
export function currentPreset(active: AgentSession): PresetId {
  if (active.runtime.sandbox === 'read-only') return 'read-only';
  return isPreset(active.approval) ? active.approval : 'ask';
}

/** Applies `preset` to the session's runtime (approval policy, sandbox). */
export function applyPreset(active: AgentSession, preset: PresetId): void {
  const approval = preset === 'read-only' ? 'ask' : preset;
  active.runtime.setApproval(approval);
  active.approval = approval;
  const sandbox = active.config.sandbox === 'read-only' ? 'workspace-write' : active.config.sandbox;
  active.runtime.setSandbox(preset === 'read-only' ? 'read-only' : sandbox);
}

/** The config options of a session. */
export function configOptions(active: AgentSession): SessionConfigOption[] {
  return [
    {
      type: 'select',
      id: PRESET_OPTION,
      name: 'Approval',
      category: 'mode',
      description: "When Spine asks before a tool runs (Spine's approval policy)",
      currentValue: currentPreset(active),
      options: PRESETS.map(({ id, name, description }) => ({ value: id, name, description })),
    },
  ];
}

/** The same presets as legacy modes. */
export function modeState(active: AgentSession): SessionModeState {
  return {
    currentModeId: currentPreset(active),
    availableModes: PRESETS.map((preset) => ({ ...preset })),
  };
}
