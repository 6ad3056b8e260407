#!/usr/bin/env node
// The entry stays plain JS so `npx textrelay` works without a build step; tsx compiles the sources on load.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
