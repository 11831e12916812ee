#!/usr/bin/env node
/**
 * The `cronql` command's entry (the package's `bin`). It turns on Node's compile cache (Node 22.1
 * and later; see src/main.ts) before importing the commands, so a command after the first reuses
 * their compiled code: a command line is run often and briefly, and compiling was most of a short
 * command's time. A static import would be compiled before this line runs, hence the dynamic one.
 */
import * as nodeModule from 'node:module';

nodeModule.enableCompileCache?.();
await import('./commands.js');
