import { setFlagsFromString } from 'node:v8';
setFlagsFromString('--max-semi-space-size=' + (process.env.SEMI ?? '4'));
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
