#!/usr/bin/env node
// The `tailscope` command. Sources are TypeScript, loaded through tsx so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
