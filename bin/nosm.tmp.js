import { register } from 'tsx/esm/api';
register();
process.setSourceMapsEnabled(false);
await import('../src/cli.ts');
