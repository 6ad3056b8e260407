import { describe } from 'vitest';
import { describeSdkSurface } from './surface.ts';
import { startSandboxWorld } from './worlds.ts';

describe('the official SDK against textrelay serve (sandbox)', () => describeSdkSurface(startSandboxWorld));
