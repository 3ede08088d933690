// Types of cli/build.mjs (plain JavaScript so bin/rcm.js can load it without a loader).
export declare const SOURCE_DIRS: string[];
export declare const STAMP: string;
export declare function sourceState(root: string): { newest: number; entries: number };
export declare function freshDist(root: string, out?: string): string | null;
export declare function build(root: string, out?: string): Promise<{ out: string; compiled: number; copied: number }>;
