import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hiddenProgramRoots } from './sandbox.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('hiddenProgramRoots', () => {
  it('shows the project a server under /tmp was installed into, and nothing else', () => {
    const project = mkdtempSync('/tmp/spine-mcp-project-');
    const workspace = mkdtempSync('/tmp/spine-mcp-ws-');
    made.push(project, workspace);
    const dist = join(project, 'node_modules', '@scope', 'server', 'dist');
    mkdirSync(dist, { recursive: true });
    const script = join(dist, 'index.js');
    writeFileSync(script, '');
    const loose = mkdtempSync('/tmp/spine-mcp-loose-');
    made.push(loose);
    writeFileSync(join(loose, 'server.js'), '');
    writeFileSync(join(workspace, 'local.js'), '');
    expect(
      hiddenProgramRoots(
        [
          process.execPath,
          script,
          join(loose, 'server.js'),
          join(workspace, 'local.js'),
          '/tmp/spine-no-such-file',
          '--flag',
          'relative/path.js',
          '/tmp',
        ],
        workspace,
      ),
    ).toEqual([project, loose]);
  });
});
