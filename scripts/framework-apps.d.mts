/** Each framework example: its folder, its start (node arguments, `{port}` a free port), its exit code after SIGTERM. */
export const FRAMEWORK_APPS: Record<string, { dir: string; start: string[]; exitCode: number }>;
/** Copies, installs from `tarballs` (package name → .tgz), builds and runs each example; one result per step. */
export function checkFrameworkApps(
  tarballs: Map<string, string>,
): Promise<{ name: string; ok: boolean; output: string }[]>;
