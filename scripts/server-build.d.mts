/** scripts/server-build.mjs: builds dist-server/index.mjs when stale; the file to run, or undefined (run with tsx). */
export function ensureServerBuild(root: string): Promise<string | undefined>;
export function serverBuildPaths(root: string): { dir: string; bundle: string; inputs: string };
