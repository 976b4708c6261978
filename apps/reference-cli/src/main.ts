// The `spine` command line. Every command module is imported lazily, inside its action, so a
// command pays only for what it uses (cold start is a benchmarked figure).

import { Command, CommanderError } from 'commander';
import { type AgentFlags, addAgentOptions, addStoreOptions } from './cli-flags.js';
import { tolerateClosedOutput } from './closed-output.js';
import { cliVersion } from './version.js';

// report-error.ts loads the harness (to explain a missing optional part): only when reporting.
const reporting = () => import('./report-error.js');

// A closed stdout or stderr (`spine run --json … | head -1`, a terminal that hung up) must not
// end a task: the session log is the record. Node ignores SIGPIPE, so EPIPE arrives here.
tolerateClosedOutput();
// Anything that still escapes is a bug: say so, with where to report it and the session id.
const crash = (error: unknown): void => {
  void reporting()
    .then(({ reportError }) => reportError(error))
    .finally(() => process.exit(1));
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const version = cliVersion();

type Flags = AgentFlags & Record<string, unknown>;

function act<A extends unknown[]>(
  load: () => Promise<(...args: [...A, Flags]) => Promise<number>>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    // commander passes the positional arguments, then the options, then the command.
    const command = args.at(-1) as Command;
    const positional = args.slice(0, -2) as A;
    const flags = command.optsWithGlobals() as Flags;
    try {
      const handler = await load();
      process.exitCode = await handler(...positional, flags);
    } catch (error) {
      const { exitCodeOf, reportError } = await reporting();
      reportError(error);
      process.exitCode = exitCodeOf(error);
    }
  };
}

const program = new Command('spine')
  .description(
    'Spine: a coding agent whose every session is replayable, auditable and recoverable.',
  )
  .version(version, '-V, --version')
  .showHelpAfterError('(spine --help lists the commands and options)')
  // Usage errors exit 2 (the contract), not commander's default 1.
  .exitOverride()
  .addHelpText(
    'after',
    `
Exit codes: 0 success · 1 internal error (a bug: please report it) · 2 bad usage, invalid
configuration, an unknown or unusable session or session directory
· 3 model or provider failure · 4 a tool call was denied (or a hook blocked the prompt)
· 5 replay or rerun mismatch, or an altered log (spine verify) · 6 step limit reached
· 7 spine doctor found a failed check · 8 cost or token budget reached (--max-cost,
--max-tokens) · 9 the model was stuck in a loop (it went on repeating itself after it was
told; thresholds under "loops") · 130 aborted (Ctrl-C)

Try it with no key and no network: spine demo`,
  );

addAgentOptions(program).action(
  act(async () => (await import('./interactive/repl.js')).runInteractive),
);

addAgentOptions(program.command('run').argument('<task...>', 'what the agent should do'))
  .description('Run one task non-interactively')
  .option(
    '--image <file>',
    'attach a PNG, JPEG, GIF or WebP image to the task (repeatable)',
    (value: string, previous: string[] = []) => [...previous, value],
  )
  .action(act<[string[]]>(async () => (await import('./commands/run.js')).runCommand));

addAgentOptions(program.command('resume').argument('<id>').argument('[task...]'))
  .description('Continue a recorded session with a new task (or finish an interrupted one)')
  .action(act<[string, string[]]>(async () => (await import('./commands/run.js')).resumeCommand));

addStoreOptions(program.command('sessions'))
  .description('List sessions: title, time, size, model, cost')
  .option('--limit <n>', 'at most this many')
  .option('--here', 'only sessions of this workspace (--cwd)')
  .option('--json', 'one JSON object per line')
  .action(act(async () => (await import('./commands/sessions.js')).sessionsCommand));

addStoreOptions(program.command('show').argument('<id>'))
  .description('Print a readable transcript of a session')
  .option('--events', 'raw events instead of the transcript')
  .option('--reasoning', "show the model's reasoning in full")
  .option('--json', 'as JSON (with --events: NDJSON, one event per line)')
  .option('--follow', 'keep printing events as they are committed (needs --store)')
  .action(act<[string]>(async () => (await import('./commands/show.js')).showCommand));

addStoreOptions(program.command('store').command('migrate'))
  .description('Create or upgrade the PostgreSQL store schema (needs --store)')
  .option('--json', 'the result as JSON')
  .action(act(async () => (await import('./workers/migrate.js')).storeMigrateCommand));

addAgentOptions(program.command('submit').argument('<task...>', 'what the agent should do'))
  .description('Queue a task for `spine worker` (needs --store)')
  .option('--workspace <path|git URL>', 'where the task runs (default: --cwd)')
  .action(act<[string[]]>(async () => (await import('./workers/submit.js')).submitCommand));

addAgentOptions(program.command('worker'))
  .description('Claim queued tasks and run each as a session in the store (needs --store)')
  .option('--concurrency <n>', 'tasks run at once (default 1)')
  .option('--name <name>', 'this worker in task lists (default host:pid)')
  .option('--lease-ms <ms>', 'claim and session lease length (default 30000)')
  .option('--grace-ms <ms>', 'time running tasks get to finish after SIGTERM (default 30000)')
  .option('--poll-ms <ms>', 'how often an idle worker looks for tasks (default 1000)')
  .option('--work-dir <dir>', 'where git workspaces are cloned')
  .action(act(async () => (await import('./workers/worker.js')).workerCommand));

addAgentOptions(program.command('replay').argument('<id>'))
  .description('Rebuild what the model saw at each request and verify the recorded hashes')
  .option('--request <n>', 'print the request with this number (1-based)')
  .option('--verify', 'verify every request hash; non-zero exit on mismatch')
  .action(act<[string]>(async () => (await import('./commands/replay.js')).replayCommand));

addAgentOptions(program.command('rerun').argument('<id>'))
  .description('Re-execute a session with its recorded model outputs against the current code')
  .option('--out-dir <dir>', 'store the rerun session there (default: in memory)')
  .action(act<[string]>(async () => (await import('./commands/rerun.js')).rerunCommand));

addStoreOptions(program.command('fork').argument('<id>'))
  .description('Start a new session from a prefix of another')
  .requiredOption('--at <seq>', 'last seq of the parent to keep')
  .option('--json', 'print the new session header as JSON')
  .action(act<[string]>(async () => (await import('./commands/fork.js')).forkCommand));

addStoreOptions(program.command('rewind').argument('<id>'))
  .description('Put the workspace back to where a session was at a turn, step or log seq')
  .requiredOption('--to <point>', 'a turn (3), a step (3.2) or a log seq (@120)')
  .option('--dry-run', 'show what would change (with a diff), change nothing')
  .option('--conversation', 'also fork the conversation at that point (the original log stays)')
  .option('--yes', 'overwrite files changed outside Spine without asking')
  .action(act<[string]>(async () => (await import('./rewind/command.js')).rewindCommand));

addStoreOptions(program.command('verify').argument('<id>'))
  .description("Check a session log's tamper-evident chain; names the first altered event")
  .option('--json', 'one JSON object')
  .action(act<[string]>(async () => (await import('./verify/command.js')).verifyCommand));

addStoreOptions(program.command('export').argument('<id>'))
  .description('Export a session as Markdown, JSON or a self-contained HTML audit page')
  .option('--format <format>', 'md | json | html', 'md')
  .option('-o, --output <file>', 'write to a file instead of stdout')
  .action(act<[string]>(async () => (await import('./commands/export.js')).exportCommand));

addAgentOptions(program.command('acp'))
  .description('Serve Spine to an editor over the Agent Client Protocol (stdio), e.g. Zed')
  .action(act(async () => (await import('./acp/command.js')).acpCommand));

addStoreOptions(program.command('serve'))
  .description('Serve the session list and audit pages on 127.0.0.1 (read-only, token in the URL)')
  .option('--port <n>', 'port to listen on (default: a free one)')
  .action(act(async () => (await import('./serve/command.js')).serveCommand));

addAgentOptions(program.command('doctor'))
  .description(
    'Check provider keys and reachability, sandbox, language servers, web providers, session store',
  )
  .action(act(async () => (await import('./commands/doctor.js')).doctorCommand));

addAgentOptions(program.command('config'))
  .description('Show the configuration')
  .option('--effective', 'every value with the layer it came from')
  .action(act(async () => (await import('./commands/config.js')).configCommand));

addStoreOptions(program.command('memory'))
  .description('Show the user and project memory files and their facts')
  .option('--json', 'as one JSON object')
  .action(act(async () => (await import('./commands/memory.js')).memoryCommand));

const more = (value: string, previous: string[] = []): string[] => [...previous, value];
addStoreOptions(
  program.command('mcp').argument('<action>').argument('[name]').argument('[rest...]'),
)
  .description(
    "MCP servers: list | get <name> | add <name> <command|url> [args…] | remove <name> | serve (Spine's tools as an MCP server)",
  )
  .option('--scope <scope>', 'add/remove in project (.mcp.json, default) or user config')
  .option('--transport <kind>', 'add: stdio (default), http or sse')
  .option('--env <KEY=VALUE>', 'add: a stdio server variable ($VAR allowed; repeatable)', more)
  .option(
    '--header <"Name: value">',
    'add: a remote server header ($VAR allowed; repeatable)',
    more,
  )
  .option('--json', 'list/get as JSON')
  .option('--tools <names>', 'serve: comma-separated tools (default: all but task, recall, memory)')
  .option('--http', 'serve: Streamable HTTP on 127.0.0.1 with a bearer token (default: stdio)')
  .option('--port <n>', 'serve --http: the port (default: a free one)')
  .option('--host <address>', 'serve --http: 127.0.0.1 (default) or ::1; nothing else')
  .option('--sandbox <mode>', 'serve: read-only | workspace-write | danger-full-access')
  .option('--approval <policy>', 'serve: ask | auto-edit | never-ask | deny-all')
  .action(
    act<[string, string | undefined, string[]]>(
      async () => (await import('./mcp/command.js')).mcpCommand,
    ),
  );

program
  .command('demo')
  .description('Rerun and verify the bundled example session (no key, no network)')
  .option('--keep', 'keep the temporary workspace')
  .option('--json', 'machine-readable summary')
  .action(act(async () => (await import('./commands/demo.js')).demoCommand));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : 2;
}
