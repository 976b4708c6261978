import { describe, expect, it } from 'vitest';
import { formatMemoryReport } from './memory-report.js';

describe('the memory report', () => {
  it('shows escape sequences in facts (from the model or a cloned repository) as text', () => {
    const shown = formatMemoryReport({
      enabled: true,
      note: 'note',
      files: [
        {
          scope: 'project',
          path: '/w/.spine/memory.md',
          exists: true,
          cut: false,
          linked: false,
          facts: [
            {
              text: 'Use npm test\u001b[2K\u001b[1A\u001b]0;pwned\u0007',
              sessionId: 's\u009b1',
              date: '2026-12-01',
            },
            { text: 'hand \u202eexe.txt' },
          ],
        },
      ],
    });
    expect(shown).toContain(
      '  - Use npm test\\x1b[2K\\x1b[1A\\x1b]0;pwned\\x07  [session s\\x9b1, 2026-12-01]',
    );
    expect(shown).toContain('  - hand \\u202eexe.txt  [hand-written]');
    for (const raw of ['\u001b', '\u0007', '\u009b', '\u202e'])
      expect(shown.includes(raw)).toBe(false);
  });
});
