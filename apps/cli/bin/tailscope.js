#!/usr/bin/env node
// The `tailscope` command. Sources are TypeScript, loaded through tsx so there is no build step.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../../../tsconfig.runtime.json', import.meta.url)) });
await import('../src/main.ts');
