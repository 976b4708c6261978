import type { SandboxMode, ToolHooks } from '@spine/protocol';
import type { ApprovalPolicy, ApprovalPolicyName } from './approval.js';
import type { ToolRuntime } from './runtime.js';

/** Options of {@link createLazyToolRuntime}. */
export interface LazyToolRuntimeOptions {
  /** The sandbox mode reported (and applied) before the runtime is built. */
  sandbox: SandboxMode;
  /** Builds the real runtime with every tool registered. Called once, on first use. */
  build: () => ToolRuntime;
  /** Applied to every policy passed to `setApproval` (e.g. the user-memory approval rule). */
  mapApproval?: (policy: ApprovalPolicyName | ApprovalPolicy) => ApprovalPolicy;
}

/** A {@link ToolRuntime} whose construction waits for first use, and whether it happened. */
export interface LazyToolRuntime extends ToolRuntime {
  /** True once the real runtime exists. */
  readonly built: boolean;
}

/**
 * Defers building the tool runtime (tool definitions, argument validators compiled for every
 * tool, language-server and web tools) until the first request needs the tool specs, so a
 * session is ready for input as soon as its log is open. Sandbox and approval changes made
 * before that are remembered and applied when it is built.
 */
export function createLazyToolRuntime(options: LazyToolRuntimeOptions): LazyToolRuntime {
  let runtime: ToolRuntime | undefined;
  let sandbox = options.sandbox;
  let approval: ApprovalPolicyName | ApprovalPolicy | undefined;
  const ensure = (): ToolRuntime => {
    if (!runtime) {
      const built = options.build();
      if (built.sandbox !== sandbox) built.setSandbox(sandbox);
      if (approval !== undefined) built.setApproval(approval);
      runtime = built;
    }
    return runtime;
  };
  return {
    specificationVersion: 1,
    get built() {
      return runtime !== undefined;
    },
    specs: (agent) => ensure().specs(agent),
    run: (calls, runOptions) => ensure().run(calls, runOptions),
    register: (tool) => ensure().register(tool),
    unregister: (name) => ensure().unregister(name),
    setSandbox(mode) {
      runtime?.setSandbox(mode);
      sandbox = mode;
    },
    setApproval(requested) {
      const policy = options.mapApproval ? options.mapApproval(requested) : requested;
      runtime?.setApproval(policy);
      approval = policy;
    },
    get sandbox() {
      return runtime?.sandbox ?? sandbox;
    },
    get hooks(): Required<ToolHooks> {
      return ensure().hooks;
    },
    set hooks(value: Required<ToolHooks>) {
      ensure().hooks = value;
    },
    sandboxBackend: () => ensure().sandboxBackend(),
  };
}
