import { fuzzShare } from './run.ts';

fuzzShare('reads');
