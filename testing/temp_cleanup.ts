import { afterAll } from 'vitest';
import { removeTempDirs } from './temp_dirs.js';

// Every test file's temp dirs (`tempDir`) go when the file ends: a run leaves nothing in the system's temp dir.
afterAll(removeTempDirs);
