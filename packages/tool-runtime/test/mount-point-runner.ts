// Runs one command under the real bwrap sandbox in workspace-write mode (argv[2]: the workspace),
// prints whether the `.spine` mount point existed while it ran, and exits: the mount point must
// be gone afterwards (mount-point-cleanup.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createBwrapSandbox } from '../src/index.js';

const workspace = process.argv[2] as string;
const backend = createBwrapSandbox();
if (!backend.spawn) throw new Error('the bwrap backend spawns commands itself');
const child = backend.spawn(
  { command: 'echo ran > out.txt', cwd: workspace, workspace, mode: 'workspace-write' },
  {},
);
await new Promise((resolve) => child.once('exit', resolve));
process.stdout.write(`${JSON.stringify({ during: existsSync(join(workspace, '.spine')) })}\n`);
