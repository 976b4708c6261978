// Approval presets and the model, offered to the client as session config options (categories
// `mode` and `model`) and the presets also as legacy modes. A preset sets Spine's approval policy
// (and, for read-only, the sandbox); the policy stays Spine's: the runtime applies it, and its
// decisions are recorded per call. Every change is recorded: `plan/mode` when plan mode is
// entered or left, `session/config` for any other preset and for the model.
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import {
  type AgentSession,
  applyPlanMode,
  enterPlanMode,
  type ResolvedModel,
  resolveModel,
} from '@spine/harness';

/** The presets, in the order a client lists them. */
export const PRESETS = [
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Commands cannot change files (read-only sandbox); edits are asked for',
  },
  {
    id: 'plan',
    name: 'Plan',
    description: 'Read, search and plan; writes and commands are refused',
  },
  { id: 'ask', name: 'Ask', description: 'Ask before edits and commands' },
  { id: 'auto-edit', name: 'Auto-edit', description: 'Edit files freely, ask before commands' },
  { id: 'never-ask', name: 'Never ask', description: 'Run everything within the sandbox' },
] as const;

/** One preset's id. */
export type PresetId = (typeof PRESETS)[number]['id'];

/** The config option id of the approval preset. */
export const PRESET_OPTION = 'approval';

/** The config option id of the model. */
export const MODEL_OPTION = 'model';

/** The preset ids, for error messages. */
export const PRESET_IDS = PRESETS.map((preset) => preset.id).join(', ');

/** True for a known preset id. */
export function isPreset(value: unknown): value is PresetId {
  return PRESETS.some((preset) => preset.id === value);
}

/** The preset a session is in now. */
export function currentPreset(active: AgentSession): PresetId {
  if (active.approval === 'plan') return 'plan';
  if (active.runtime.sandbox === 'read-only') return 'read-only';
  return isPreset(active.approval) ? active.approval : 'ask';
}

/**
 * Applies `preset` to the session's runtime (approval policy, sandbox) and records the change;
 * choosing the preset in force changes and records nothing.
 */
export function applyPreset(active: AgentSession, preset: PresetId): void {
  const previous = currentPreset(active);
  if (preset === previous) return;
  const target = { session: active.session, runtime: active.runtime, prompt: active.prompt };
  const sandbox = active.config.sandbox === 'read-only' ? 'workspace-write' : active.config.sandbox;
  active.runtime.setSandbox(preset === 'read-only' ? 'read-only' : sandbox);
  if (preset === 'plan') {
    // The policy to return to is the one under the preset (read-only runs as `ask`).
    enterPlanMode(target, active.approval, 'person');
    active.approval = 'plan';
    return;
  }
  const approval = preset === 'read-only' ? 'ask' : preset;
  if (previous === 'plan')
    applyPlanMode(target, { mode: 'implement', approval, previous: 'plan', by: 'person' });
  else active.runtime.setApproval(approval);
  active.approval = approval;
  active.session.append('session/config', {
    option: 'approval',
    value: preset,
    previous,
    by: 'client',
  });
}

/** `provider/model` of a resolved model. */
export function modelName(model: Pick<ResolvedModel, 'provider' | 'modelId'>): string {
  return `${model.provider}/${model.modelId}`;
}

/** The models a client may choose: the one in use, then the configuration's model table. */
export function modelChoices(active: AgentSession): string[] {
  const names = [
    modelName(active.model),
    active.config.model,
    ...active.config.models.map((entry) => `${entry.provider}/${entry.id}`),
  ];
  return [...new Set(names)];
}

/**
 * Switches the model of the next requests to `name` (one of {@link modelChoices}) and records it.
 *
 * @throws an {@link Error} from model resolution (unknown provider, malformed name).
 */
export async function applyModel(active: AgentSession, name: string): Promise<void> {
  const previous = modelName(active.model);
  if (name === previous) return;
  const model = await resolveModel({ ...active.config, model: name });
  active.agent.setModel(model.client, model.modelId, model.contextWindow);
  Object.assign(active.model, model);
  active.session.append('session/config', { option: 'model', value: name, previous, by: 'client' });
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
    {
      type: 'select',
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      description: 'The model of the next requests',
      currentValue: modelName(active.model),
      options: modelChoices(active).map((name) => ({ value: name, name })),
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
