// Imported, not read from disk: the single executable has no package.json beside it.
import packageJson from '../package.json' with { type: 'json' };

/** The package version, for user-agents and the OpenAPI document. */
export const VERSION: string = packageJson.version;
