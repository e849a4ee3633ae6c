import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLICY_KINDS, POLICY_SPECS } from '@tailscope/analysis';

/** docs/whatif.md documents every policy and every parameter with the default the code applies. */
describe('docs/whatif.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../../docs/whatif.md'), 'utf8');

  it('has a section per policy kind', () => {
    for (const kind of POLICY_KINDS) expect(doc).toContain(`### \`${kind}\``);
  });

  it('lists every parameter, in a table row with its default', () => {
    for (const kind of POLICY_KINDS) {
      const section = doc.split(`### \`${kind}\``)[1]?.split('\n### ')[0] ?? '';
      for (const p of POLICY_SPECS[kind].parameters) {
        if (kind === 'canary' || kind === 'sync-background') {
          expect(section, `${kind}.${p.name}`).toContain(`\`${p.name}\``);
          if (p.default !== undefined)
            expect(section, `${kind}.${p.name}`).toContain(
              `default ${p.default.toLocaleString('en-US')}`,
            );
          continue;
        }
        const row = section.split('\n').find((l) => new RegExp(`^\\| \`${p.name}\` +\\|`).test(l));
        expect(row, `${kind}.${p.name}`).toBeDefined();
        if (p.default !== undefined)
          expect(row?.split('|')[2]?.trim(), `${kind}.${p.name}`).toBe(String(p.default));
      }
    }
  });
});
