export function currentBuild(root: string): string | undefined;
