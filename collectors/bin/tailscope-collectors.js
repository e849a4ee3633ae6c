#!/usr/bin/env node
// The collectors' command (probe, wrap). Sources are TypeScript, loaded through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
