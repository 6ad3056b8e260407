import { describe } from 'vitest';
import { describeSdkSurface } from './surface.ts';
import { startRelayWorld } from './worlds.ts';

describe('the official SDK through a relay to a second textrelay (upstream)', () => describeSdkSurface(startRelayWorld));
