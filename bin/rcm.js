#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader (no build step to forget; see README "Design").
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../cli/main.ts');
process.exitCode = await run(process.argv);
